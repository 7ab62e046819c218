package ai.openalice.rl.events.task;

import ai.openalice.rl.events.WireEnum;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Training tasks feed the trainer; evaluation tasks are only used by evaluation runs. */
public enum Split implements WireEnum {
    TRAIN("train"),
    EVAL("eval");

    private final String wire;

    Split(String wire) { this.wire = wire; }

    @JsonValue
    @Override
    public String wire() { return wire; }

    @JsonCreator
    public static Split of(String value) { return WireEnum.parse(Split.class, value); }
}
