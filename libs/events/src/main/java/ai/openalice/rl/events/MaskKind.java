package ai.openalice.rl.events;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Why rubric-prm masked a rollout (no reward, out of its group's baseline), for code to act on;
 * {@code RewardScored.maskReason} keeps the sentence for people. Every kind today is an
 * infrastructure failure: the dispatcher retries the member and the trainer never trains on it.
 */
public enum MaskKind implements WireEnum {
    /** The episode itself ended in an infrastructure error (sandbox, policy server, runner). */
    EPISODE_INFRA_ERROR("episode_infra_error", true),
    /** The episode ended, but its verification failed for infrastructure reasons (no verdict). */
    VERIFICATION_INFRA_ERROR("verification_infra_error", true);

    private final String wire;
    private final boolean infra;

    MaskKind(String wire, boolean infra) {
        this.wire = wire;
        this.infra = infra;
    }

    @JsonValue
    @Override
    public String wire() { return wire; }

    @JsonCreator
    public static MaskKind of(String value) { return WireEnum.parse(MaskKind.class, value); }

    /** Whether the rollout is to be retried rather than scored (an infrastructure failure is never a reward). */
    public boolean infra() {
        return infra;
    }
}
