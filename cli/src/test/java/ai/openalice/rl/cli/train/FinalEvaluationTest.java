package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** How much of the held-out set the last evaluation takes and how much of a time limit it keeps — every figure by hand. */
class FinalEvaluationTest {
    static final List<String> EIGHT = IntStream.rangeClosed(1, 8).mapToObj(i -> "t" + i).toList();

    @Test
    void withATimeLimitOnlyTheTasksThatFitAreTakenAndTheCutIsSaid() {
        // 10 s an episode, margin 1.25, 10 s overhead, k = 2: n tasks take 25·n + 10 s; 120 s left holds 4 (110 s), not 5 (135 s)
        var plan = FinalEvaluation.plan(EIGHT, 2, null, Duration.ofSeconds(120), new FinalEvaluation.Pace(10.0, 0));
        assertEquals(List.of("t1", "t2", "t3", "t4"), plan.tasks());
        assertEquals(8, plan.episodes());
        assertEquals("4 of 8 held-out tasks: what fits in the 0:02:00 left at about 10 s an episode", plan.cut());
        // one episode lasts 60 s however many run side by side: 85 s with margin and overhead, more than the 60 s left — still one task
        var one = FinalEvaluation.plan(EIGHT, 2, null, Duration.ofSeconds(60), new FinalEvaluation.Pace(1.0, 60));
        assertEquals(List.of("t1"), one.tasks());
        // all fit: 8 × 2 × 10 × 1.25 + 10 = 210 s ≤ 300 s
        assertNull(FinalEvaluation.plan(EIGHT, 2, null, Duration.ofSeconds(300), new FinalEvaluation.Pace(10.0, 0)).cut());
    }

    @Test
    void withoutATimeLimitOrAPaceTheAskedNumberIsTaken() {
        assertEquals(8, FinalEvaluation.plan(EIGHT, 2, null, null, new FinalEvaluation.Pace(10.0, 0)).tasks().size());
        assertEquals(List.of("t1", "t2", "t3"), FinalEvaluation.plan(EIGHT, 2, 3, Duration.ofSeconds(1), FinalEvaluation.Pace.UNKNOWN).tasks());
        assertEquals(8, FinalEvaluation.plan(EIGHT, 2, 20, null, FinalEvaluation.Pace.UNKNOWN).tasks().size());
        assertEquals(0, FinalEvaluation.plan(EIGHT, 2, 0, null, FinalEvaluation.Pace.UNKNOWN).episodes());
    }

    @Test
    void theReserveIsTheEstimateOrAQuarterAndNeverMoreThanHalf() {
        Duration tenMinutes = Duration.ofMinutes(10);
        assertEquals(Duration.ofSeconds(150), FinalEvaluation.reserve(16, FinalEvaluation.Pace.UNKNOWN, tenMinutes));
        assertEquals(Duration.ofSeconds(210), FinalEvaluation.reserve(16, new FinalEvaluation.Pace(10.0, 0), tenMinutes)); // 16 × 10 × 1.25 + 10
        assertEquals(Duration.ofSeconds(300), FinalEvaluation.reserve(16, new FinalEvaluation.Pace(30.0, 0), tenMinutes)); // 610 s, capped at half
        assertEquals(Duration.ofSeconds(35), FinalEvaluation.reserve(2, new FinalEvaluation.Pace(1.0, 20), Duration.ofMinutes(2))); // max(2, 20) × 1.25 + 10
        assertEquals(Duration.ZERO, FinalEvaluation.reserve(0, new FinalEvaluation.Pace(10.0, 0), tenMinutes));
    }

    @Test
    void theOptionIsAllOffOrANumber() {
        assertNull(FinalEvaluation.parse("all"));
        assertEquals(0, FinalEvaluation.parse("off"));
        assertEquals(3, FinalEvaluation.parse(" 3 "));
        var e = assertThrows(IllegalArgumentException.class, () -> FinalEvaluation.parse("-1"));
        assertTrue(e.getMessage().startsWith("--final-eval: "), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FinalEvaluation.parse("some"));
    }
}
