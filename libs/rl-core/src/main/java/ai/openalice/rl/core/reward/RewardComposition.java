package ai.openalice.rl.core.reward;

/**
 * SWE-TRACE's composition of the execution reward with a rubric process score, with margin
 * γ ∈ (½, 1): {@code R = (1−γ)·s_prm} if {@code r_exec = 0}, {@code R = γ + (1−γ)·s_prm} if
 * {@code r_exec = 1}. Failing rewards lie in [0, 1−γ] and passing ones in [γ, 1]; since γ &gt; ½,
 * {@code 1−γ < γ}: every passing trajectory outranks every failing one.
 */
public final class RewardComposition {
    private RewardComposition() {}

    public static double compose(int rExec, double sPrm, double gamma) {
        if (rExec != 0 && rExec != 1) {
            throw new IllegalArgumentException("r_exec must be 0 or 1, got " + rExec);
        }
        if (!(sPrm >= 0 && sPrm <= 1)) {
            throw new IllegalArgumentException("s_prm must be in [0, 1], got " + sPrm);
        }
        if (!(gamma > 0.5 && gamma < 1)) {
            throw new IllegalArgumentException("gamma must be in (0.5, 1), got " + gamma);
        }
        return rExec == 1 ? gamma + (1 - gamma) * sPrm : (1 - gamma) * sPrm;
    }

    /**
     * The rubric score {@code s_prm = Σ w_k·q_k}: weights non-negative and summing to 1 (within
     * 1e-9), each {@code q_k ∈ [0, 1]}.
     */
    public static double rubricScore(double[] weights, double[] scores) {
        if (weights.length != scores.length) {
            throw new IllegalArgumentException(weights.length + " weights for " + scores.length + " criterion scores");
        }
        double sumW = 0;
        double s = 0;
        for (int k = 0; k < weights.length; k++) {
            if (!(weights[k] >= 0)) {
                throw new IllegalArgumentException("weight w_" + k + " must be >= 0, got " + weights[k]);
            }
            if (!(scores[k] >= 0 && scores[k] <= 1)) {
                throw new IllegalArgumentException("criterion score q_" + k + " must be in [0, 1], got " + scores[k]);
            }
            sumW += weights[k];
            s += weights[k] * scores[k];
        }
        if (Math.abs(sumW - 1) > 1e-9) {
            throw new IllegalArgumentException("rubric weights must sum to 1, got " + sumW);
        }
        return Math.min(1, Math.max(0, s));
    }
}
