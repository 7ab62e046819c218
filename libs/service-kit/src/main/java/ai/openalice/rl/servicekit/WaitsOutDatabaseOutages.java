package ai.openalice.rl.servicekit;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a Kafka consumer method: while the database is unavailable, the event is neither acknowledged
 * nor refused — the call waits (0.5 s doubling to 10 s) and is made again until the database is
 * back, so an outage never sends an event to the dead-letter topic or stops the channel
 * ({@link DatabaseOutageWait}). Consumers are idempotent, so the repeated call is safe.
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface WaitsOutDatabaseOutages {}
