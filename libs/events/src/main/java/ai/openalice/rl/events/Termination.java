package ai.openalice.rl.events;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Why an episode ended. {@link #INFRA_ERROR} is never scored as a failure of the policy. */
public enum Termination implements WireEnum {
    SUBMITTED("submitted"),
    MAX_STEPS("max_steps"),
    MAX_CONTEXT("max_context"),
    TIMEOUT("timeout"),
    INFRA_ERROR("infra_error");

    private final String wire;

    Termination(String wire) { this.wire = wire; }

    @JsonValue
    @Override
    public String wire() { return wire; }

    @JsonCreator
    public static Termination of(String value) { return WireEnum.parse(Termination.class, value); }
}
