package ai.openalice.rl.core.loss;

/**
 * The scalar reference of the policy loss that the DJL learner must match. Per valid token, with
 * {@code ρ = exp(logp − old)}, advantage {@code A} and TIS weight
 * {@code w = min(exp(old − rollout), C)} (1 without rollout log-probs; a constant, no gradient):
 * <pre>
 *   pg  = max(−A·ρ, −A·clip(ρ, 1−ε_low, 1+ε_high))          PPO clipped surrogate, clip-high
 *   pg  = min(pg, −A·c)            if A &lt; 0 and dual clip c is on
 *   ℓ   = w·pg + β_KL·kl(logp, ref) − β_H·H
 *   loss = Σ coef·ℓ                 coef from {@link Aggregation#coefficients}
 * </pre>
 * The gradient is returned with respect to each token's {@code logp}: {@code dpg/dlogp = −A·ρ}
 * where the unclipped branch is active and 0 where a clip is; the entropy term's gradient flows
 * through the whole distribution and is not part of it (β_H is 0 by default).
 *
 * <p>Metrics: clip fraction (tokens whose gradient a clip zeroed), dual-clip fraction, approximate
 * KL(π_old ‖ π_θ) as the mean of {@code (ρ − 1) − log ρ}, and the mean TIS weight.
 */
public final class PolicyLoss {
    private PolicyLoss() {}

    /** Loss, gradient and metrics of one batch. */
    public record Result(
            double loss, double[] gradLogprobs, double clipFraction, double dualClipFraction,
            double approxKl, double meanTisWeight, int validTokens) {}

    public static Result compute(TokenBatch batch, PolicyLossConfig config) {
        if (config.klCoef() != 0 && batch.refLogprobs() == null) {
            throw new IllegalArgumentException("klCoef is " + config.klCoef() + " but the batch has no refLogprobs");
        }
        if (config.entropyCoef() != 0 && batch.entropies() == null) {
            throw new IllegalArgumentException("entropyCoef is " + config.entropyCoef() + " but the batch has no entropies");
        }
        double[] seqCoef = config.aggregation().sequenceCoefficients(batch.offsets(), batch.mask(), config.maxLength());
        int[] offsets = batch.offsets();
        double[] lp = batch.logprobs();
        double[] old = batch.oldLogprobs();
        double[] adv = batch.advantages();
        double[] rollout = batch.rolloutLogprobs();
        double[] ref = batch.refLogprobs();
        double[] ent = batch.entropies();
        boolean[] mask = batch.mask();
        double lo = 1 - config.epsLow();
        double hi = 1 + config.epsHigh();
        boolean dual = !Double.isNaN(config.dualClip());
        double dualC = config.dualClip();
        double tisCap = config.tisCap();
        double klCoef = config.klCoef();
        KlEstimator kl = config.kl();
        double entropyCoef = config.entropyCoef();

        double[] grad = new double[batch.tokens()];
        double loss = 0;
        double klSum = 0;
        double tisSum = 0;
        int valid = 0;
        int clipped = 0;
        int dualClipped = 0;
        for (int s = 0; s < seqCoef.length; s++) {
            double coef = seqCoef[s];
            for (int i = offsets[s], end = offsets[s + 1]; i < end; i++) {
                if (!mask[i]) {
                    continue;
                }
                valid++;
                double logRatio = lp[i] - old[i];
                double ratio = Math.exp(logRatio);
                double a = adv[i];
                double unclipped = -a * ratio;
                double clippedLoss = -a * Math.min(Math.max(ratio, lo), hi);
                // Written without data-dependent branches: advantages' signs are random, so
                // branches here mispredict; max and conditional moves do not.
                boolean clip = clippedLoss > unclipped;
                double pg = Math.max(unclipped, clippedLoss);
                double dpg = clip ? 0 : unclipped; // d(−A·ρ)/dlogp = −A·ρ where unclipped
                clipped += clip ? 1 : 0;
                if (dual) {
                    double bound = -a * dualC;
                    boolean cut = a < 0 && pg > bound;
                    pg = cut ? bound : pg;
                    dpg = cut ? 0 : dpg;
                    dualClipped += cut ? 1 : 0;
                }
                double w = rollout == null ? 1 : Math.min(Math.exp(old[i] - rollout[i]), tisCap);
                tisSum += w;
                double tokenLoss = w * pg;
                double tokenGrad = w * dpg;
                if (klCoef != 0) {
                    tokenLoss += klCoef * kl.value(lp[i], ref[i]);
                    tokenGrad += klCoef * kl.derivative(lp[i], ref[i]);
                }
                if (entropyCoef != 0) {
                    tokenLoss -= entropyCoef * ent[i];
                }
                loss += coef * tokenLoss;
                grad[i] = coef * tokenGrad;
                klSum += (ratio - 1) - logRatio;
            }
        }
        double d = Math.max(valid, 1);
        return new Result(loss, grad, clipped / d, dualClipped / d, klSum / d, valid == 0 ? 1 : tisSum / valid, valid);
    }
}
