package ai.openalice.rl.core.credit;

/** Discounted returns {@code R_t = Σ_{k≥t} γ^{k−t} r_k}. */
public final class DiscountedReturns {
    private DiscountedReturns() {}

    public static double[] of(double[] rewards, double gamma) {
        double[] out = new double[rewards.length];
        double running = 0;
        for (int t = rewards.length - 1; t >= 0; t--) {
            running = rewards[t] + gamma * running;
            out[t] = running;
        }
        return out;
    }
}
