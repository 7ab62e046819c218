package ai.openalice.rl.trainer.service;

import ai.openalice.rl.trainer.repository.TrainerStore;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The RL loss compares each token's log-prob now with the one it was sampled at, both at one
 * temperature: a training group sampled at another temperature than the trainer's would give
 * importance ratios that measure the temperature, not the policy's change. Such groups are refused
 * (counted as {@code temperature}), never trained on. A sample stored before rewards.scored carried
 * its temperature is taken as it is.
 */
final class TemperatureScreen {
    /** How far two temperatures may differ and still be one (they travel as JSON numbers). */
    static final double TOLERANCE = 1e-9;

    private TemperatureScreen() {}

    /** The training groups of {@code ready} with a member sampled at another temperature than {@code trainer}, each with the reason. */
    static Map<UUID, String> offTemperature(List<TrainerStore.ReadyGroup> ready, double trainer) {
        var out = new LinkedHashMap<UUID, String>();
        for (var g : ready) {
            if (g.evaluation()) {
                continue; // dropped as an evaluation, whatever its temperature
            }
            g.members().stream().filter(m -> m.temperature() != null && Math.abs(m.temperature() - trainer) > TOLERANCE).findFirst()
                    .ifPresent(m -> out.put(g.groupId(), "sampled at temperature " + m.temperature() + ", the trainer computes log-probs at " + trainer
                            + " (trainer.loss.temperature): its importance ratios would be wrong"));
        }
        return out;
    }
}
