package ai.openalice.rl.core.loss;

import ai.openalice.rl.core.Registry;

/**
 * How per-token losses {@code ℓ} become one scalar. With {@code m} the mask, {@code n_s} the
 * valid tokens of sequence s, {@code N = Σ n_s}, {@code B} the number of sequences with at least
 * one valid token, and {@code L_max} a constant maximum length:
 * <ul>
 *   <li>{@code token-mean}: {@code Σ m·ℓ / N};</li>
 *   <li>{@code seq-mean-token-sum}: {@code (1/B) Σ_s Σ_t m·ℓ};</li>
 *   <li>{@code seq-mean-token-mean}: {@code (1/B) Σ_s (Σ_t m·ℓ) / n_s};</li>
 *   <li>{@code seq-mean-token-sum-norm} (Dr. GRPO, DeepSWE): {@code (1/B) Σ_s Σ_t m·ℓ / L_max} —
 *       no length bias, since the divisor does not depend on the sequence.</li>
 * </ul>
 * Each mode is expressed as a per-token coefficient {@code w} with {@code loss = Σ w·ℓ}, which is
 * also the learner's loss weighting.
 */
public enum Aggregation {
    TOKEN_MEAN("token-mean"),
    SEQ_MEAN_TOKEN_SUM("seq-mean-token-sum"),
    SEQ_MEAN_TOKEN_MEAN("seq-mean-token-mean"),
    SEQ_MEAN_TOKEN_SUM_NORM("seq-mean-token-sum-norm");

    private static final Registry<Aggregation> REGISTRY = new Registry<>("loss aggregation");

    static {
        for (Aggregation a : values()) {
            REGISTRY.register(a.wire, a);
        }
    }

    private final String wire;

    Aggregation(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static Aggregation byName(String name) {
        return REGISTRY.get(name);
    }

    /**
     * Per-token coefficients {@code w} for sequences delimited by {@code offsets} (length B+1):
     * sequence s holds tokens {@code [offsets[s], offsets[s+1])}. Masked tokens get 0.
     */
    public double[] coefficients(int[] offsets, boolean[] mask, int maxLength) {
        double[] perSequence = sequenceCoefficients(offsets, mask, maxLength);
        double[] w = new double[mask.length];
        for (int s = 0; s < perSequence.length; s++) {
            for (int i = offsets[s]; i < offsets[s + 1]; i++) {
                if (mask[i]) {
                    w[i] = perSequence[s];
                }
            }
        }
        return w;
    }

    /**
     * The coefficient shared by every valid token of each sequence (every mode weighs the tokens
     * of one sequence equally); 0 for sequences without a valid token.
     */
    public double[] sequenceCoefficients(int[] offsets, boolean[] mask, int maxLength) {
        int sequences = offsets.length - 1;
        int[] valid = new int[sequences];
        long total = 0;
        int nonEmpty = 0;
        for (int s = 0; s < sequences; s++) {
            int v = 0;
            for (int i = offsets[s]; i < offsets[s + 1]; i++) {
                if (mask[i]) {
                    v++;
                }
            }
            valid[s] = v;
            total += v;
            if (v > 0) {
                nonEmpty++;
            }
        }
        double[] c = new double[sequences];
        for (int s = 0; s < sequences; s++) {
            if (valid[s] == 0) {
                continue;
            }
            c[s] = switch (this) {
                case TOKEN_MEAN -> 1.0 / total;
                case SEQ_MEAN_TOKEN_SUM -> 1.0 / nonEmpty;
                case SEQ_MEAN_TOKEN_MEAN -> 1.0 / ((double) nonEmpty * valid[s]);
                case SEQ_MEAN_TOKEN_SUM_NORM -> 1.0 / ((double) nonEmpty * maxLength);
            };
        }
        return c;
    }
}
