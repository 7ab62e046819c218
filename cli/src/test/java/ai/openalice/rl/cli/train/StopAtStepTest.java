package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** --steps N ends the run only once the checkpoint holding step N (or the last one due before it) is committed. */
class StopAtStepTest {
    static JsonNode status(long step, long checkpointStep, long every) throws Exception {
        return new ObjectMapper().readTree("{\"step\": %d, \"checkpointStep\": %d, \"checkpointEvery\": %d}".formatted(step, checkpointStep, every));
    }

    @Test
    void theStepsCheckpointIsWaitedFor() throws Exception {
        assertFalse(Progress.committed(status(2, 1, 1), 2), "step 2 counted, its checkpoint still being written");
        assertTrue(Progress.committed(status(2, 2, 1), 2));
        assertTrue(Progress.committed(status(3, 3, 1), 2), "a later checkpoint holds step 2 too");
    }

    @Test
    void betweenCheckpointsTheLastDueOneIsEnough() throws Exception {
        // every 4 steps: step 6's state is only ever in the checkpoint of step 4 (8 is not due yet)
        assertTrue(Progress.committed(status(6, 4, 4), 6));
        assertFalse(Progress.committed(status(6, 0, 4), 6), "step 4's checkpoint not yet committed");
        assertFalse(Progress.committed(status(8, 4, 4), 8), "step 8's is due");
    }

    @Test
    void aTrainerThatDoesNotSayIsTakenAtItsStep() throws Exception {
        assertTrue(Progress.committed(new ObjectMapper().readTree("{\"step\": 5}"), 5));
    }
}
