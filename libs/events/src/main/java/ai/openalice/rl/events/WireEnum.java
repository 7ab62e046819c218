package ai.openalice.rl.events;

import java.util.Arrays;

/** An enum whose JSON form is a lower-case wire name; {@link #parse} names the allowed values on error. */
public interface WireEnum {
    String wire();

    static <E extends Enum<E> & WireEnum> E parse(Class<E> type, String value) {
        return Arrays.stream(type.getEnumConstants()).filter(e -> e.wire().equals(value)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("'" + value + "' is not one of "
                        + Arrays.stream(type.getEnumConstants()).map(WireEnum::wire).toList()));
    }
}
