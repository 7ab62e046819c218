package ai.openalice.rl.events;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a record component added to a schema after its version was published (a compatible change):
 * an event written before it lacks the field, and {@link EventCodec} reads it as null rather than as
 * malformed. {@link #value} says in which change it came, for the reader of the code.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface Added {
    String value();
}
