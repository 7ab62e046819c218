package ai.openalice.rl.model;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Chooses the next token from logits: greedy at temperature 0, otherwise nucleus sampling (top-p)
 * over softmax(logits / T), seeded and reproducible. The reported log-prob is that of the chosen
 * token under softmax(logits / T) — the distribution the trainer recomputes — not under the
 * renormalised nucleus.
 */
public final class Sampler {
    private final double temperature;
    private final double topP;
    private final SplittableRandom random;

    public Sampler(double temperature, double topP, long seed) {
        if (!(temperature >= 0) || !(topP > 0 && topP <= 1)) {
            throw new IllegalArgumentException("temperature must be >= 0 and top_p in (0, 1], got " + temperature + ", " + topP);
        }
        this.temperature = temperature;
        this.topP = topP;
        this.random = new SplittableRandom(seed);
    }

    /** A chosen token and its log-prob. */
    public record Choice(int token, double logprob) {}

    public Choice next(float[] logits) {
        double t = temperature == 0 ? 1 : temperature;
        double[] logp = logSoftmax(logits, t);
        if (temperature == 0) {
            int best = argmax(logits);
            return new Choice(best, logp[best]);
        }
        Integer[] order = new Integer[logits.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(logp[b], logp[a]));
        double mass = 0;
        int kept = 0;
        while (kept < order.length && (kept == 0 || mass < topP)) {
            mass += Math.exp(logp[order[kept]]);
            kept++;
        }
        double u = random.nextDouble() * mass;
        double acc = 0;
        for (int i = 0; i < kept; i++) {
            acc += Math.exp(logp[order[i]]);
            if (u < acc) {
                return new Choice(order[i], logp[order[i]]);
            }
        }
        return new Choice(order[kept - 1], logp[order[kept - 1]]);
    }

    /** The index of the largest value (the first one on ties). */
    public static int argmax(float[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) {
            if (v[i] > v[best]) {
                best = i;
            }
        }
        return best;
    }

    /** log softmax(logits / t), computed stably in double precision. */
    public static double[] logSoftmax(float[] logits, double t) {
        double max = Double.NEGATIVE_INFINITY;
        for (float l : logits) {
            max = Math.max(max, l / t);
        }
        double z = 0;
        for (float l : logits) {
            z += Math.exp(l / t - max);
        }
        double logZ = max + Math.log(z);
        double[] out = new double[logits.length];
        for (int i = 0; i < logits.length; i++) {
            out[i] = logits[i] / t - logZ;
        }
        return out;
    }
}
