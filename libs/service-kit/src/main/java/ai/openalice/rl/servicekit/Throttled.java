package ai.openalice.rl.servicekit;

import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A reading taken at most once per period, whatever the scrape rate: a count over a table costs
 * the database a query, and Prometheus may scrape every few seconds from several replicas. A
 * reading that throws is not kept: the next call asks again.
 */
public final class Throttled<T> implements Supplier<T> {
    private final Supplier<T> source;
    private final long periodNanos;
    private final LongSupplier nanoTime;
    private T value;
    private long takenAt;
    private boolean taken;

    public Throttled(Supplier<T> source, Duration period, LongSupplier nanoTime) {
        this.source = source;
        this.periodNanos = period.toNanos();
        this.nanoTime = nanoTime;
    }

    @Override
    public synchronized T get() {
        long now = nanoTime.getAsLong();
        if (!taken || now - takenAt >= periodNanos) {
            value = source.get();
            takenAt = now;
            taken = true;
        }
        return value;
    }
}
