package ai.openalice.rl.dispatcher.model;

import static ai.openalice.rl.dispatcher.model.RolloutState.COMPLETED;
import static ai.openalice.rl.dispatcher.model.RolloutState.DROPPED;
import static ai.openalice.rl.dispatcher.model.RolloutState.FAILED;
import static ai.openalice.rl.dispatcher.model.RolloutState.PENDING;
import static ai.openalice.rl.dispatcher.model.RolloutState.REQUESTED;
import static ai.openalice.rl.dispatcher.model.RolloutState.RETRIED;
import static ai.openalice.rl.dispatcher.model.RolloutState.SCORED;
import static ai.openalice.rl.dispatcher.model.RolloutState.VERIFIED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The rollout lifecycle's transition table, worked out by hand from what each event may do. */
class RolloutStateTest {

    @Test
    void theHappyPathAndItsShortcuts() {
        assertTrue(REQUESTED.follows(PENDING));
        assertTrue(COMPLETED.follows(REQUESTED));
        assertTrue(VERIFIED.follows(COMPLETED));
        assertTrue(VERIFIED.follows(REQUESTED), "a verdict may arrive before the dispatcher saw the completion");
        assertTrue(SCORED.follows(REQUESTED) && SCORED.follows(COMPLETED) && SCORED.follows(VERIFIED), "a score may overtake both");
    }

    @Test
    void aLateOrRepeatedEventMovesNothingBack() {
        assertFalse(COMPLETED.follows(VERIFIED), "a completion after the verdict");
        assertFalse(COMPLETED.follows(SCORED));
        assertFalse(VERIFIED.follows(SCORED), "a verdict after the score");
        assertFalse(COMPLETED.follows(COMPLETED), "a redelivered completion");
        assertFalse(SCORED.follows(SCORED), "a redelivered score is counted once");
        for (RolloutState after : EnumSet.of(SCORED, FAILED, DROPPED)) {
            assertFalse(RETRIED.follows(after), "an infrastructure failure reported after " + after + " retries nothing");
        }
    }

    @Test
    void onlyTheLastAttemptGivenUpFailsAndOnlyLiveRolloutsGoStale() {
        assertEquals(Set.of(RETRIED), FAILED.from());
        assertEquals(Set.of(REQUESTED, COMPLETED, VERIFIED), DROPPED.from());
        assertFalse(DROPPED.follows(PENDING), "an evaluation waiting for capacity is not sampled yet: it cannot be stale");
        assertEquals(Set.of(SCORED, FAILED, DROPPED), EnumSet.copyOf(Arrays.stream(RolloutState.values()).filter(RolloutState::settled).toList()));
    }

    @Test
    void whatALiveRolloutWaitsForAndTheWireNames() {
        assertEquals("rollouts.completed", REQUESTED.awaits());
        assertEquals("verifications.completed", COMPLETED.awaits());
        assertEquals("rewards.scored", VERIFIED.awaits());
        assertThrows(IllegalStateException.class, SCORED::awaits);
        assertEquals(VERIFIED, RolloutState.of("verified"));
        assertThrows(IllegalArgumentException.class, () -> RolloutState.of("done"));
        assertEquals(List.of("requested", "completed", "verified"), List.of(RolloutState.wires(RolloutState.LIVE)));
    }
}
