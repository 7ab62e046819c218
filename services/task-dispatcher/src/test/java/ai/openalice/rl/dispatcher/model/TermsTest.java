package ai.openalice.rl.dispatcher.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import ai.openalice.rl.events.CheckpointPublished;
import org.junit.jupiter.api.Test;

class TermsTest {
    static final Terms OWN = Terms.own(1.0, true, 4, 8);

    @Test
    void theTrainersStatedTermsReplaceTheDispatchersOwnButANullTemperatureKeepsItsOwn() {
        assertSame(OWN, OWN.following(null), "nothing stated: nothing changes");
        assertEquals(new Terms(0.7, false, 2, 1, 4096, true), OWN.following(new CheckpointPublished.Terms(0.7, false, 2, 1, 4096)));
        assertEquals(new Terms(1.0, false, 2, 1, 4096, true), OWN.following(new CheckpointPublished.Terms(null, false, 2, 1, 4096)));
    }

    @Test
    void theContextBoundIsTheSmallerOfTheTasksAndTheTrainers() {
        assertNull(OWN.contextBound(null), "no bound from either");
        assertEquals(600, OWN.contextBound(600));
        var trainer = OWN.following(new CheckpointPublished.Terms(0.7, false, 2, 1, 512));
        assertEquals(512, trainer.contextBound(null));
        assertEquals(300, trainer.contextBound(300));
        assertEquals(512, trainer.contextBound(600));
    }
}
