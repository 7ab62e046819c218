package ai.openalice.rl.retry;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * The pauses of one wait for something that is away (a database, a policy server, a sandbox back
 * end): a bound that starts at {@code first} and doubles up to {@code max}, and each pause drawn
 * uniformly between zero and the bound — "full jitter" (Brooker, "Exponential Backoff and Jitter",
 * AWS Architecture Blog, 2015). Without jitter every consumer that met the same outage retries at
 * the same instants and hits the recovering server together; with it their retries spread over
 * the whole bound. One instance per wait; not thread-safe. Written here rather than taken from a
 * library (Failsafe, Resilience4j) because each caller keeps its own loop — what counts as an
 * outage, a deadline, a metric — and needs only the pauses.
 */
public final class Backoff {
    private final long maxMs;
    private final RandomGenerator random; // null: no jitter
    private long boundMs;

    private Backoff(Duration first, Duration max, RandomGenerator random) {
        if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
            throw new IllegalArgumentException("need 0 < first <= max, got " + first + " and " + max);
        }
        this.boundMs = first.toMillis();
        this.maxMs = max.toMillis();
        this.random = random;
    }

    /** Full jitter from the thread's own random source. */
    public static Backoff of(Duration first, Duration max) {
        return new Backoff(first, max, ThreadLocalRandom.current());
    }

    /** Full jitter from {@code random} (tests inject one). */
    public static Backoff of(Duration first, Duration max, RandomGenerator random) {
        return new Backoff(first, max, random);
    }

    /** The bound itself each time: plain doubling (the lock-step baseline; tests that count pauses). */
    public static Backoff withoutJitter(Duration first, Duration max) {
        return new Backoff(first, max, null);
    }

    /** The bound the next pause is drawn under, in milliseconds. */
    public long boundMillis() {
        return boundMs;
    }

    /** The next pause in milliseconds (between 0 and the bound), doubling the bound for the one after. */
    public long nextMillis() {
        long pause = random == null ? boundMs : random.nextLong(boundMs + 1);
        boundMs = Math.min(maxMs, boundMs * 2);
        return pause;
    }

    public Duration next() {
        return Duration.ofMillis(nextMillis());
    }

    /** Sleeps the next pause. */
    public void sleep() throws InterruptedException {
        Thread.sleep(nextMillis());
    }
}
