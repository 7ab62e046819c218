package ai.openalice.rl.cli.train;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Says why no trainer step comes: while the step stands still for a minute or more, once a minute,
 * what the trainer left out of training since its last step, by reason (its {@code /status}
 * {@code dropped}; held-out evaluation groups, never trained on, are not counted).
 * A model that never solves a task makes only groups with one outcome, which GRPO cannot learn
 * from — without this, such a run shows step 0 forever and nothing else.
 */
final class StallWatch {
    static final long AFTER_MS = 60_000;
    /** Held-out evaluation groups: never trained on by design, so never among what a stalled trainer "left out". */
    private static final String EVALUATION = "evaluation";
    /** Groups whose members all scored alike: no advantage, nothing to learn. */
    private static final Set<String> ONE_OUTCOME = Set.of("all_outcomes_equal", "all_rewards_equal", "none_solved");

    private long step = -1;
    private long since;
    private long lastNote;
    private Map<String, Long> atStep = Map.of();

    /** A note to show now, or null; {@code dropped} is the trainer's counts since it started, by reason. */
    String observe(long nowMs, long currentStep, JsonNode dropped) {
        Map<String, Long> counts = counts(dropped);
        if (currentStep != step) {
            step = currentStep;
            since = nowMs;
            lastNote = nowMs;
            atStep = counts;
            return null;
        }
        var delta = new TreeMap<String, Long>();
        for (var e : counts.entrySet()) {
            long before = atStep.getOrDefault(e.getKey(), 0L);
            if (e.getValue() < before) { // the trainer restarted: its counts began again
                atStep = counts;
                return null;
            }
            if (e.getValue() > before) {
                delta.put(e.getKey(), e.getValue() - before);
            }
        }
        if (nowMs - since < AFTER_MS || nowMs - lastNote < AFTER_MS || delta.isEmpty()) {
            return null;
        }
        lastNote = nowMs;
        var reasons = new StringBuilder();
        delta.forEach((k, n) -> reasons.append(reasons.isEmpty() ? "" : ", ").append(k).append(' ').append(n));
        String hint = delta.keySet().stream().anyMatch(ONE_OUTCOME::contains)
                ? "; a group whose rollouts all scored alike (all failed, or all solved) teaches GRPO nothing — if no step comes for long,"
                        + " the tasks are too hard or too easy for the model: other tasks, a warm start (--warm-start-steps), or a larger"
                        + " --group-size"
                : "";
        return String.format("no step for %d s: since step %d the trainer left out %s (trainer_dropped_total)%s", (nowMs - since) / 1000, step,
                reasons, hint);
    }

    private static Map<String, Long> counts(JsonNode dropped) {
        var out = new TreeMap<String, Long>();
        if (dropped != null && dropped.isObject()) {
            dropped.properties().stream().filter(e -> !e.getKey().equals(EVALUATION)).forEach(e -> out.put(e.getKey(), e.getValue().asLong()));
        }
        return out;
    }
}
