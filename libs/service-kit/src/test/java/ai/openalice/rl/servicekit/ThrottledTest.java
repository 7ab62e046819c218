package ai.openalice.rl.servicekit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ThrottledTest {
    /** Period 30 s on a hand-driven clock: readings at 0, 10 and 29.9 s query once; at 30 s and 31 s once more. */
    @Test
    void theSourceIsAskedAtMostOncePerPeriod() {
        var clock = new AtomicLong();
        var queries = new AtomicInteger();
        var gauge = new Throttled(queries::incrementAndGet, Duration.ofSeconds(30), clock::get);
        assertEquals(1, gauge.getAsDouble());
        clock.set(Duration.ofSeconds(10).toNanos());
        assertEquals(1, gauge.getAsDouble());
        clock.set(Duration.ofMillis(29_900).toNanos());
        assertEquals(1, gauge.getAsDouble());
        clock.set(Duration.ofSeconds(30).toNanos());
        assertEquals(2, gauge.getAsDouble());
        clock.set(Duration.ofSeconds(31).toNanos());
        assertEquals(2, gauge.getAsDouble());
        assertEquals(2, queries.get());
    }
}
