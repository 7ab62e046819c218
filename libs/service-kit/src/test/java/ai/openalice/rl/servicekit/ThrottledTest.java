package ai.openalice.rl.servicekit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

class ThrottledTest {
    /** Period 30 s on a hand-driven clock: readings at 0, 10 and 29.9 s query once; at 30 s and 31 s once more. */
    @Test
    void theSourceIsAskedAtMostOncePerPeriod() {
        var clock = new AtomicLong();
        var queries = new AtomicInteger();
        var gauge = new Throttled<>(queries::incrementAndGet, Duration.ofSeconds(30), clock::get);
        assertEquals(1, (int) gauge.get());
        clock.set(Duration.ofSeconds(10).toNanos());
        assertEquals(1, (int) gauge.get());
        clock.set(Duration.ofMillis(29_900).toNanos());
        assertEquals(1, (int) gauge.get());
        clock.set(Duration.ofSeconds(30).toNanos());
        assertEquals(2, (int) gauge.get());
        clock.set(Duration.ofSeconds(31).toNanos());
        assertEquals(2, (int) gauge.get());
        assertEquals(2, queries.get());
    }

    /** A reading that failed is not kept: the next call, within the period, asks again. */
    @Test
    void aFailedReadingIsAskedAgain() {
        var clock = new AtomicLong();
        var calls = new AtomicInteger();
        var gauge = new Throttled<>(() -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("the database is away");
            }
            return 7;
        }, Duration.ofSeconds(30), clock::get);
        Assertions.assertThrows(IllegalStateException.class, gauge::get);
        clock.set(Duration.ofSeconds(1).toNanos());
        assertEquals(7, (int) gauge.get());
        assertEquals(7, (int) gauge.get());
        assertEquals(2, calls.get());
    }
}
