package ai.openalice.rl.cli.train;

import java.util.ArrayDeque;

/**
 * Rollouts per second over the last {@code window} (a moving average): the count scored now less the
 * count at the newest sample at least a window old, over the time between them. Sampled every few
 * seconds, the rate between two samples jumps between 0 and a burst (groups are scored together); over
 * a minute it reads steadily. Until a window has passed it is the rate since the first sample. A count
 * that falls (the dispatcher's history window was pruned) starts the average again.
 */
final class Throughput {
    private final long windowMs;
    private final ArrayDeque<long[]> samples = new ArrayDeque<>();

    Throughput(long windowMs) {
        this.windowMs = windowMs;
    }

    /** Records {@code scored} at {@code nowMs} and returns the rate per second over the window ending now. */
    double observe(long nowMs, long scored) {
        if (!samples.isEmpty() && scored < samples.peekLast()[1]) {
            samples.clear();
        }
        samples.addLast(new long[] {nowMs, scored});
        while (samples.size() > 2) {
            var it = samples.iterator();
            it.next();
            if (it.next()[0] > nowMs - windowMs) {
                break;
            }
            samples.removeFirst();
        }
        long[] oldest = samples.peekFirst();
        return nowMs > oldest[0] ? (scored - oldest[1]) * 1000.0 / (nowMs - oldest[0]) : 0;
    }
}
