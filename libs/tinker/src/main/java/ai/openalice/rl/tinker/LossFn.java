package ai.openalice.rl.tinker;

/**
 * The losses of forward_backward, each a sum over the weighted target positions (r = exp(logp −
 * logp_sampler), A the advantage, w the weight): {@code cross_entropy} −w·logp;
 * {@code importance_sampling} −w·r·A; {@code ppo} −w·min(r·A, clip(r, low, high)·A) with the
 * thresholds {@code clip_low_threshold} and {@code clip_high_threshold} (ratios, e.g. 0.8 and
 * 1.28 for ε_low 0.2, ε_high 0.28); {@code cispo} −w·sg(clip(r, low, high))·logp·A.
 */
public enum LossFn {
    CROSS_ENTROPY("cross_entropy"),
    IMPORTANCE_SAMPLING("importance_sampling"),
    PPO("ppo"),
    CISPO("cispo");

    private final String wire;

    LossFn(String wire) {
        this.wire = wire;
    }

    /** The name on the wire. */
    public String wire() {
        return wire;
    }
}
