package ai.openalice.rl.core.credit;

import ai.openalice.rl.core.Checks;

/**
 * Hindsight counterfactual credit: given the outcome {@code R(τ)} of the full trajectory and the
 * outcomes {@code R(τ_{−t})} of re-runs with turn t ablated, the credit of turn t is
 * {@code c_t = R(τ) − R(τ_{−t})}: how much the outcome depended on that turn.
 */
public final class CounterfactualCredit {
    private CounterfactualCredit() {}

    /** How credits become per-turn advantages. */
    public enum Mode {
        /** {@code A_t = A^E + ω·c_t}. */
        ADDITIVE,
        /**
         * {@code A_t = A^E · T · |c_t| / Σ_k |c_k|}: the episode advantage redistributed over the T
         * turns in proportion to how much each mattered (the total {@code T·A^E} is what broadcasting
         * would give); uniform {@code A^E} when no turn mattered.
         */
        PROPORTIONAL
    }

    /** {@code c_t = R(τ) − R(τ_{−t})}. */
    public static double[] credits(double fullOutcome, double[] ablatedOutcomes) {
        Checks.finite("fullOutcome", fullOutcome);
        Checks.finite("ablatedOutcomes", ablatedOutcomes);
        double[] c = new double[ablatedOutcomes.length];
        for (int t = 0; t < c.length; t++) {
            c[t] = fullOutcome - ablatedOutcomes[t];
        }
        return c;
    }

    /** Per-turn advantages from the episode advantage and the turns' credits. */
    public static double[] advantages(double episodeAdvantage, double fullOutcome, double[] ablatedOutcomes, Mode mode, double omega) {
        Checks.finite("episodeAdvantage", episodeAdvantage);
        double[] c = credits(fullOutcome, ablatedOutcomes);
        double[] a = new double[c.length];
        switch (mode) {
            case ADDITIVE -> {
                for (int t = 0; t < c.length; t++) {
                    a[t] = episodeAdvantage + omega * c[t];
                }
            }
            case PROPORTIONAL -> {
                double total = 0;
                for (double x : c) {
                    total += Math.abs(x);
                }
                for (int t = 0; t < c.length; t++) {
                    a[t] = total == 0 ? episodeAdvantage : episodeAdvantage * c.length * Math.abs(c[t]) / total;
                }
            }
        }
        return a;
    }
}
