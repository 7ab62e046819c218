package ai.openalice.rl.trainer.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.servicekit.DiskSpace;
import ai.openalice.rl.tinker.TinkerRejectedException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The verdict on a failed step, by what failed it, and the waiting the status shows. */
class StepFailuresTest {
    @Test
    void aBatchTheEngineRefusesIsDroppedAtOnceNamingTheRefusal() {
        var v = StepFailures.judge(new TinkerRejectedException(400, "/api/v1/retrieve_future refused (400): index out of range"), 1);
        assertTrue(v.drop());
        assertEquals("refused", v.counter());
        assertEquals("the Tinker engine refused the batch: /api/v1/retrieve_future refused (400): index out of range", v.reason());
        // what the client gives up on after its bounded tries of an unexplained 5xx comes as a refusal too
        assertTrue(StepFailures.judge(new TinkerRejectedException(500, "failed 10 times in a row with 500"), 1).drop());
    }

    @Test
    void aBatchTheModelCannotTakeIsDroppedAtOnce() {
        var v = StepFailures.judge(new IllegalArgumentException("an empty batch"), 1);
        assertTrue(v.drop());
        assertEquals("the model cannot take the batch: an empty batch", v.reason());
    }

    @Test
    void anyOtherFailureIsTriedAgainOnTheSameBatchThenDropped() {
        var e = new IllegalStateException("native allocation failed");
        assertFalse(StepFailures.judge(e, 1).drop());
        assertFalse(StepFailures.judge(e, StepFailures.TRIES - 1).drop());
        var last = StepFailures.judge(e, StepFailures.TRIES);
        assertTrue(last.drop());
        assertEquals("step_failed", last.counter());
        assertEquals("the step failed 3 times on this batch: native allocation failed", last.reason());
    }

    @Test
    void aCheckpointVolumeUnderItsMinimumHoldsTheNextStep(@TempDir Path dir) {
        assertNull(StepFailures.noRoom(new DiskSpace(List.of(dir), 1024L << 20, p -> 2048L << 20)), "2 GiB free of the 1 GiB wanted");
        String why = StepFailures.noRoom(new DiskSpace(List.of(dir), 1024L << 20, p -> 100L << 20));
        assertTrue(why.startsWith("the checkpoint volume has too little room (") && why.contains(dir.toString())
                && why.endsWith("under trainer.min-free-disk-mib): no step until there is room"), why);
    }

    @Test
    void waitingIsShownUntilTheLoopRecoversAndPausesStayUnderTheirBound() {
        var f = new StepFailures();
        assertEquals(Map.of(), f.status());
        long bound = StepFailures.FIRST_PAUSE.toMillis();
        for (int i = 0; i < 8; i++) {
            long pause = f.pauseAfter("PostgreSQL: connection refused");
            assertTrue(pause >= 0 && pause <= bound, "pause " + i + " of " + pause + " ms under its bound of " + bound + " ms");
            bound = Math.min(StepFailures.MAX_PAUSE.toMillis(), bound * 2);
        }
        @SuppressWarnings("unchecked")
        var waiting = (Map<String, Object>) f.status().get("waiting");
        assertEquals("PostgreSQL: connection refused", waiting.get("reason"));
        assertTrue(f.recovered());
        assertNull(f.status().get("waiting"));
        assertFalse(f.recovered(), "nothing was waited for since");
    }
}
