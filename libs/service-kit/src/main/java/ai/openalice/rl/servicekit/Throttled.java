package ai.openalice.rl.servicekit;

import java.time.Duration;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * A gauge's reading taken at most once per period, whatever the scrape rate: a count over a table
 * costs the database a query, and Prometheus may scrape every few seconds from several replicas.
 */
public final class Throttled implements DoubleSupplier {
    private final DoubleSupplier source;
    private final long periodNanos;
    private final LongSupplier nanoTime;
    private double value;
    private long takenAt;
    private boolean taken;

    public Throttled(DoubleSupplier source, Duration period, LongSupplier nanoTime) {
        this.source = source;
        this.periodNanos = period.toNanos();
        this.nanoTime = nanoTime;
    }

    @Override
    public synchronized double getAsDouble() {
        long now = nanoTime.getAsLong();
        if (!taken || now - takenAt >= periodNanos) {
            value = source.getAsDouble();
            takenAt = now;
            taken = true;
        }
        return value;
    }
}
