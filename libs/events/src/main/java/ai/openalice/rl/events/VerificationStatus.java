package ai.openalice.rl.events;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** The verifier's verdict. {@link #INFRA_ERROR} is not a verdict on the patch: the rollout is retried. */
public enum VerificationStatus implements WireEnum {
    RESOLVED("resolved"),
    UNRESOLVED("unresolved"),
    PATCH_FAILED("patch_failed"),
    TIMED_OUT("timed_out"),
    INFRA_ERROR("infra_error");

    private final String wire;

    VerificationStatus(String wire) { this.wire = wire; }

    @JsonValue
    @Override
    public String wire() { return wire; }

    @JsonCreator
    public static VerificationStatus of(String value) { return WireEnum.parse(VerificationStatus.class, value); }
}
