package ai.openalice.rl.events.task;

import ai.openalice.rl.events.WireEnum;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** One thing wrong with a task: the field (a JSON path, {@code $} for the whole), a code, and a message. */
public record FieldError(String field, Code code, String message) {

    /** What kind of problem; each maps to something the publisher can fix. */
    public enum Code implements WireEnum {
        MISSING("missing"),
        WRONG_TYPE("wrong_type"),
        INVALID_VALUE("invalid_value"),
        MALFORMED_JSON("malformed_json"),
        CONFLICT("conflict"),
        UNKNOWN_TYPE("unknown_type");

        private final String wire;

        Code(String wire) { this.wire = wire; }

        @JsonValue
        @Override
        public String wire() { return wire; }

        @JsonCreator
        public static Code of(String value) { return WireEnum.parse(Code.class, value); }
    }

    @Override
    public String toString() {
        return field + ": " + message + " (" + code.wire() + ")";
    }
}
