package ai.openalice.rl.tinker;

import java.util.List;
import java.util.Map;

/**
 * What forward_backward answers: per datum the named per-position arrays the engine returns
 * ({@code logprobs}: the model's log-probability of each target token before the step;
 * {@code elementwise_loss}: each position's term of the loss), and the engine's metrics.
 */
public record ForwardBackwardResult(String outputType, List<Map<String, float[]>> outputs, Map<String, Double> metrics) {
    /** The model's log-probabilities of datum {@code i}'s target tokens. */
    public float[] logprobs(int i) {
        return field(i, "logprobs");
    }

    /** Datum {@code i}'s loss terms, position by position. */
    public float[] elementwiseLoss(int i) {
        return field(i, "elementwise_loss");
    }

    /** The loss of the whole batch: the sum of every datum's terms (what the engine back-propagated). */
    public double loss() {
        double sum = 0;
        for (int i = 0; i < outputs.size(); i++) {
            for (float v : elementwiseLoss(i)) {
                sum += v;
            }
        }
        return sum;
    }

    private float[] field(int i, String name) {
        float[] v = outputs.get(i).get(name);
        if (v == null) {
            throw new IllegalStateException("the engine returned no '" + name + "' for datum " + i + " (it returned " + outputs.get(i).keySet() + ")");
        }
        return v;
    }
}
