package ai.openalice.rl.testkit;

import java.time.Duration;
import java.util.concurrent.Callable;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/**
 * How a test waits for a condition (Awaitility, set up once): polled every 100 ms in the test's own
 * thread (a Kafka consumer or a JDBC connection is not to be shared across threads), and a timeout
 * names what was awaited.
 */
public final class Waits {
    private Waits() {}

    /** Awaitility's {@code await} named {@code what}, polling every 100 ms in this thread, for at most {@code atMost}. */
    public static ConditionFactory await(String what, Duration atMost) {
        return Awaitility.await(what).atMost(atMost).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100));
    }

    /** Returns once {@code condition} holds; a ConditionTimeoutException naming {@code what} when it did not within {@code atMost}. */
    public static void until(String what, Duration atMost, Callable<Boolean> condition) {
        await(what, atMost).until(condition);
    }
}
