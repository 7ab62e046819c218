package ai.openalice.rl.model.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.model.djl.Scalars;

/**
 * rl-core's policy loss ({@code ai.openalice.rl.core.loss.PolicyLoss}) in NDArray ops, so that its
 * gradient flows into the model: per token ρ = exp(logp − old), pg = max(−A·ρ, −A·clip(ρ, 1−ε_low,
 * 1+ε_high)), dual clip for A &lt; 0, times the TIS weight min(exp(old − rollout), C) (a constant),
 * weighted by the aggregation's per-token coefficients and summed. KL and entropy terms are off
 * in GRPO++ and not implemented here (the config must have them at 0).
 */
public final class PolicyGradientLoss {
    private PolicyGradientLoss() {}

    /**
     * @param logp log π_θ of the sampled tokens [B, T] (carrying the graph to the parameters)
     * @param old log π_old [B, T]; {@code rollout} the sampling engine's log-probs [B, T] or null
     * @param advantages [B, T]; {@code coef} the aggregation's per-token coefficients [B, T] (0 on masked tokens)
     */
    public static NDArray loss(NDArray logp, NDArray old, NDArray rollout, NDArray advantages, NDArray coef, PolicyLossConfig c) {
        if (c.klCoef() != 0 || c.entropyCoef() != 0) {
            throw new IllegalArgumentException("the learner's loss implements GRPO++ (no KL, no entropy bonus); got klCoef " + c.klCoef()
                    + ", entropyCoef " + c.entropyCoef());
        }
        NDArray ratio = logp.sub(old).exp();
        NDArray unclipped = advantages.neg().mul(ratio);
        NDArray clipped = advantages.neg().mul(ratio.clip(1 - c.epsLow(), 1 + c.epsHigh()));
        NDArray pg = NDArrays.maximum(unclipped, clipped);
        if (!Double.isNaN(c.dualClip())) {
            NDArray bound = Scalars.mul(advantages.neg(), c.dualClip());
            NDArray negative = advantages.lt(0);
            pg = NDArrays.where(negative, NDArrays.minimum(pg, bound), pg);
        }
        if (rollout != null) {
            NDArray w = Scalars.minimum(old.sub(rollout).exp(), c.tisCap()).stopGradient();
            pg = pg.mul(w);
        }
        return pg.mul(coef).sum();
    }

    /** Supervised fine-tuning: mean negative log-likelihood of the completion tokens (mask 1) — for warm-starting. */
    public static NDArray nll(NDArray logp, NDArray mask) {
        return logp.mul(mask).sum().neg().div(Scalars.maximum(mask.sum(), 1));
    }
}
