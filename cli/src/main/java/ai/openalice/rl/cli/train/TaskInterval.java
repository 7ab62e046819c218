package ai.openalice.rl.cli.train;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** The held-out pass@1 of a probe or a rollout file with its interval, tasks as the sampling unit. */
public final class TaskInterval {
    private TaskInterval() {}

    /**
     * Mean of the per-task pass rates and the half-width of its 95% interval with tasks as the
     * sampling unit (1.96 standard errors of the mean): the k rollouts of one task are not
     * independent draws of the suite, so the interval does not shrink with k alone. Null with fewer
     * than two tasks.
     */
    static double[] of(JsonNode tasks) {
        var rates = new ArrayList<Double>();
        for (JsonNode t : tasks) {
            if (t.path("n").asInt() > 0 && t.path("c").isNumber()) {
                rates.add(t.path("c").asDouble() / t.path("n").asInt());
            }
        }
        return of(rates);
    }

    /** The same from the per-task pass rates. */
    public static double[] of(List<Double> rates) {
        if (rates.size() < 2) {
            return null;
        }
        double mean = rates.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        double var = rates.stream().mapToDouble(x -> (x - mean) * (x - mean)).sum() / (rates.size() - 1);
        return new double[] {mean, 1.96 * Math.sqrt(var / rates.size())};
    }
}
