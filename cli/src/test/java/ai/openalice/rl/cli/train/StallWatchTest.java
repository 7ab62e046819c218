package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.EventCodec;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

class StallWatchTest {
    private static JsonNode dropped(String json) throws Exception {
        return EventCodec.mapper().readTree(json);
    }

    @Test
    void aStandingStepIsExplainedByWhatTheTrainerLeftOutSinceIt() throws Exception {
        var w = new StallWatch();
        assertNull(w.observe(0, 3, dropped("{\"stale\": 2}")), "a new step: nothing to say");
        assertNull(w.observe(30_000, 3, dropped("{\"stale\": 2, \"all_outcomes_equal\": 4}")), "under a minute");
        String note = w.observe(65_000, 3, dropped("{\"stale\": 3, \"all_outcomes_equal\": 9}"));
        // since step 3: all_outcomes_equal 9 - 0 = 9, stale 3 - 2 = 1 (sorted by reason)
        assertEquals("no step for 65 s: since step 3 the trainer left out all_outcomes_equal 9, stale 1 (trainer_dropped_total); a group whose"
                + " rollouts all scored alike (all failed, or all solved) teaches GRPO nothing — if no step comes for long, the tasks are too hard"
                + " or too easy for the model: other tasks, a warm start (--warm-start-steps), or a larger --group-size", note);
        assertNull(w.observe(90_000, 3, dropped("{\"stale\": 3, \"all_outcomes_equal\": 12}")), "once a minute");
        assertTrue(w.observe(126_000, 3, dropped("{\"stale\": 3, \"all_outcomes_equal\": 12}")).startsWith("no step for 126 s: since step 3"
                + " the trainer left out all_outcomes_equal 12, stale 1 (trainer"), "counted from the step, not from the last note");
        assertNull(w.observe(130_000, 4, dropped("{\"stale\": 3, \"all_outcomes_equal\": 12}")), "a step came");
        assertNull(w.observe(200_000, 4, dropped("{\"stale\": 3, \"all_outcomes_equal\": 12}")), "waiting without drops: nothing to explain");
    }

    @Test
    void heldOutEvaluationGroupsAreNotWhatTheTrainerLeftOut() throws Exception {
        var w = new StallWatch();
        w.observe(0, 2, dropped("{\"evaluation\": 4}"));
        assertNull(w.observe(70_000, 2, dropped("{\"evaluation\": 9}")), "only evaluation groups came: they are never trained on, nothing to explain");
        assertEquals("no step for 140 s: since step 2 the trainer left out stale 1 (trainer_dropped_total)",
                w.observe(140_000, 2, dropped("{\"evaluation\": 12, \"stale\": 1}")));
    }

    @Test
    void otherReasonsGetNoOutcomeHintAndARestartedTrainerStartsAgain() throws Exception {
        var w = new StallWatch();
        w.observe(0, 0, dropped("{\"too_long\": 5}"));
        assertNull(w.observe(61_000, 0, dropped("{\"too_long\": 1}")), "counts went down: the trainer restarted, its counts begin again");
        assertEquals("no step for 122 s: since step 0 the trainer left out too_long 2 (trainer_dropped_total)",
                w.observe(122_000, 0, dropped("{\"too_long\": 3}")));
    }
}
