package ai.openalice.rl.core.loss;

import ai.openalice.rl.core.Checks;

/**
 * Settings of the PPO clipped surrogate. Defaults are DeepSWE's GRPO++: clip-high
 * (ε_low 0.2, ε_high 0.28), no dual clip, {@code seq-mean-token-sum-norm}, no KL, no entropy bonus,
 * truncated importance sampling capped at 2.
 *
 * @param epsLow lower clip: ratios below {@code 1 − epsLow} stop pushing down (A &lt; 0)
 * @param epsHigh upper clip: ratios above {@code 1 + epsHigh} stop pushing up (A &gt; 0)
 * @param dualClip {@code c > 1} bounds the loss of negative-advantage tokens by {@code −A·c}; NaN = off
 * @param aggregation how token losses become a scalar
 * @param maxLength the constant {@code L_max} of {@code seq-mean-token-sum-norm} (max context length)
 * @param klCoef weight of the KL penalty to the reference policy; 0 = off
 * @param kl which per-token KL estimator
 * @param entropyCoef weight of the entropy bonus; 0 = off
 * @param tisCap truncated importance sampling cap C in {@code min(π_old/π_rollout, C)}; +∞ = untruncated
 */
public record PolicyLossConfig(
        double epsLow, double epsHigh, double dualClip, Aggregation aggregation, int maxLength,
        double klCoef, KlEstimator kl, double entropyCoef, double tisCap) {

    public PolicyLossConfig {
        Checks.inClosedRange("epsLow", epsLow, 0, 1);
        Checks.inClosedRange("epsHigh", epsHigh, 0, Double.MAX_VALUE);
        if (!Double.isNaN(dualClip) && !(dualClip > 1)) {
            throw new IllegalArgumentException("dualClip must be > 1 (or NaN for off), got " + dualClip);
        }
        if (maxLength < 1) {
            throw new IllegalArgumentException("maxLength must be >= 1, got " + maxLength);
        }
        Checks.finite("klCoef", klCoef);
        Checks.finite("entropyCoef", entropyCoef);
        Checks.positive("tisCap", tisCap);
    }

    public static PolicyLossConfig grpoPlusPlus(int maxLength) {
        return new PolicyLossConfig(0.2, 0.28, Double.NaN, Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, maxLength, 0, KlEstimator.K3, 0, 2.0);
    }

    public PolicyLossConfig withAggregation(Aggregation a) {
        return new PolicyLossConfig(epsLow, epsHigh, dualClip, a, maxLength, klCoef, kl, entropyCoef, tisCap);
    }

    public PolicyLossConfig withDualClip(double c) {
        return new PolicyLossConfig(epsLow, epsHigh, c, aggregation, maxLength, klCoef, kl, entropyCoef, tisCap);
    }

    public PolicyLossConfig withKl(double coef, KlEstimator estimator) {
        return new PolicyLossConfig(epsLow, epsHigh, dualClip, aggregation, maxLength, coef, estimator, entropyCoef, tisCap);
    }

    public PolicyLossConfig withEntropyCoef(double coef) {
        return new PolicyLossConfig(epsLow, epsHigh, dualClip, aggregation, maxLength, klCoef, kl, coef, tisCap);
    }

    public PolicyLossConfig withTisCap(double cap) {
        return new PolicyLossConfig(epsLow, epsHigh, dualClip, aggregation, maxLength, klCoef, kl, entropyCoef, cap);
    }
}
