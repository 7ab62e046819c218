package ai.openalice.rl.core.advantage;

import ai.openalice.rl.core.Registry;

/**
 * The group advantage estimators, by name:
 * <ul>
 *   <li>{@code grpo}: {@code A_i = (R_i − mean) / (std + ε)}, std the unbiased sample standard
 *       deviation over valid members, ε = 1e-6;</li>
 *   <li>{@code drgrpo} (Dr. GRPO): {@code A_i = R_i − mean}, no std normalisation;</li>
 *   <li>{@code loo} (RLOO, DeepSWE's choice): {@code A_i = R_i − mean_{j≠i} R_j} over valid j.</li>
 * </ul>
 * Means and std are over valid members only; masked members get 0. Fewer than two valid members
 * gives all zeros (see {@link GroupAdvantages#degenerate()}).
 */
public final class AdvantageEstimators {
    public static final double GRPO_EPSILON = 1e-6;

    private static final Registry<GroupAdvantageEstimator> REGISTRY = new Registry<GroupAdvantageEstimator>("advantage estimator")
            .register("grpo", AdvantageEstimators::grpo)
            .register("drgrpo", AdvantageEstimators::drGrpo)
            .register("loo", AdvantageEstimators::leaveOneOut);

    private AdvantageEstimators() {}

    public static GroupAdvantageEstimator get(String name) {
        return REGISTRY.get(name);
    }

    public static Registry<GroupAdvantageEstimator> registry() {
        return REGISTRY;
    }

    /** {@code (R_i − mean) / (std + ε)}. */
    public static GroupAdvantages grpo(double[] rewards, boolean[] valid) {
        GroupStats s = GroupStats.of(rewards, valid);
        if (s.valid() < 2) {
            return GroupAdvantages.degenerate(rewards.length, s.valid());
        }
        double mean = s.mean();
        double sq = 0;
        for (int i = 0; i < rewards.length; i++) {
            if (valid[i]) {
                double d = rewards[i] - mean;
                sq += d * d;
            }
        }
        double std = Math.sqrt(sq / (s.valid() - 1));
        double[] a = new double[rewards.length];
        for (int i = 0; i < rewards.length; i++) {
            a[i] = valid[i] ? (rewards[i] - mean) / (std + GRPO_EPSILON) : 0;
        }
        return new GroupAdvantages(a, s.valid(), false, "grpo");
    }

    /** {@code R_i − mean}. */
    public static GroupAdvantages drGrpo(double[] rewards, boolean[] valid) {
        GroupStats s = GroupStats.of(rewards, valid);
        if (s.valid() < 2) {
            return GroupAdvantages.degenerate(rewards.length, s.valid());
        }
        double mean = s.mean();
        double[] a = new double[rewards.length];
        for (int i = 0; i < rewards.length; i++) {
            a[i] = valid[i] ? rewards[i] - mean : 0;
        }
        return new GroupAdvantages(a, s.valid(), false, "drgrpo");
    }

    /** {@code R_i − (Σ_{j valid} R_j − R_i) / (n − 1)}, which equals {@code n/(n−1) · (R_i − mean)}. */
    public static GroupAdvantages leaveOneOut(double[] rewards, boolean[] valid) {
        GroupStats s = GroupStats.of(rewards, valid);
        if (s.valid() < 2) {
            return GroupAdvantages.degenerate(rewards.length, s.valid());
        }
        int n = s.valid();
        double[] a = new double[rewards.length];
        for (int i = 0; i < rewards.length; i++) {
            a[i] = valid[i] ? rewards[i] - (s.sum() - rewards[i]) / (n - 1) : 0;
        }
        return new GroupAdvantages(a, n, false, "loo");
    }
}
