package ai.openalice.rl.core.credit;

import ai.openalice.rl.core.Checks;

/**
 * Turn-level TD(λ) / GAE from per-turn value estimates supplied by a critic (a privileged
 * asymmetric critic, or a turn-level PRM): {@code δ_t = r_t + γ·V_{t+1} − V_t} with
 * {@code V_T = bootstrap} (0 for a finished episode), {@code A_t = Σ_l (γλ)^l δ_{t+l}}, and the
 * critic's targets {@code G_t = A_t + V_t}.
 */
public final class TurnGae {
    private TurnGae() {}

    /** Advantages and value targets, one per turn. */
    public record Result(double[] advantages, double[] returns) {}

    public static Result compute(double[] rewards, double[] values, double bootstrap, double gamma, double lambda) {
        Checks.sameLength("rewards", rewards.length, "values", values.length);
        Checks.inClosedRange("gamma", gamma, 0, 1);
        Checks.inClosedRange("lambda", lambda, 0, 1);
        Checks.finite("rewards", rewards);
        Checks.finite("values", values);
        Checks.finite("bootstrap", bootstrap);
        int n = rewards.length;
        double[] adv = new double[n];
        double[] ret = new double[n];
        double running = 0;
        for (int t = n - 1; t >= 0; t--) {
            double next = t + 1 < n ? values[t + 1] : bootstrap;
            double delta = rewards[t] + gamma * next - values[t];
            running = delta + gamma * lambda * running;
            adv[t] = running;
            ret[t] = running + values[t];
        }
        return new Result(adv, ret);
    }
}
