package ai.openalice.rl.servicekit;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** A retry with a bound and a doubling backoff, never a bare loop. */
public record BoundedRetry(int attempts, Duration initialBackoff) {

    public BoundedRetry {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be >= 1, got " + attempts);
        }
    }

    /** Calls {@code action} until it returns normally; rethrows the last failure after {@code attempts} tries. */
    public void run(Runnable action) {
        until(() -> {
            action.run();
            return Boolean.TRUE;
        }, ok -> true);
    }

    /** Calls {@code supplier} until {@code done} accepts its result or the attempts run out; returns the last result. */
    public <T> T until(Supplier<T> supplier, Predicate<T> done) {
        long pause = initialBackoff.toMillis();
        RuntimeException last = null;
        T result = null;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            try {
                result = supplier.get();
                last = null;
                if (done.test(result)) {
                    return result;
                }
            } catch (RuntimeException e) {
                last = e;
            }
            if (attempt < attempts) {
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
                pause *= 2;
            }
        }
        if (last != null) {
            throw last;
        }
        return result;
    }
}
