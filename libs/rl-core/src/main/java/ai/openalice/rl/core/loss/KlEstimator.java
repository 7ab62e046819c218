package ai.openalice.rl.core.loss;

/**
 * Per-token estimators of KL(π_θ ‖ π_ref) from log-probs, with {@code d = logp − ref}:
 * {@code k1 = d}, {@code k2 = d²/2}, {@code k3 = e^{−d} + d − 1} (non-negative, unbiased).
 */
public enum KlEstimator {
    K1, K2, K3;

    public double value(double logp, double ref) {
        double d = logp - ref;
        return switch (this) {
            case K1 -> d;
            case K2 -> 0.5 * d * d;
            case K3 -> Math.exp(-d) + d - 1;
        };
    }

    /** Derivative of {@link #value} with respect to {@code logp}. */
    public double derivative(double logp, double ref) {
        double d = logp - ref;
        return switch (this) {
            case K1 -> 1;
            case K2 -> d;
            case K3 -> 1 - Math.exp(-d);
        };
    }
}
