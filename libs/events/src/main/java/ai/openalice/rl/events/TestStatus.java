package ai.openalice.rl.events;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Outcome of one listed test. Anything but {@link #PASSED} counts as failed for the verdict. */
public enum TestStatus implements WireEnum {
    PASSED("passed"),
    FAILED("failed"),
    ERROR("error"),
    SKIPPED("skipped"),
    MISSING("missing");

    private final String wire;

    TestStatus(String wire) { this.wire = wire; }

    @JsonValue
    @Override
    public String wire() { return wire; }

    @JsonCreator
    public static TestStatus of(String value) { return WireEnum.parse(TestStatus.class, value); }
}
