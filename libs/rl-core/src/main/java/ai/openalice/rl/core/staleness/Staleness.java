package ai.openalice.rl.core.staleness;

import java.util.Map;
import java.util.TreeMap;

/**
 * Off-policy lag: a sample drawn with policy version v, trained when the trainer is at version u,
 * has lag {@code u − v}. A bound {@code maxLag} accepts lags in {@code [0, maxLag]}; a negative
 * lag (a sample from the future) is an error in the caller's bookkeeping.
 */
public final class Staleness {
    private final int maxLag;
    private final TreeMap<Long, Long> used = new TreeMap<>();
    private final TreeMap<Long, Long> rejected = new TreeMap<>();

    public Staleness(int maxLag) {
        if (maxLag < 0) {
            throw new IllegalArgumentException("maxLag must be >= 0, got " + maxLag);
        }
        this.maxLag = maxLag;
    }

    /** The verdict on one sample. */
    public sealed interface Verdict {
        long lag();

        /** Within the bound. */
        record Fresh(long lag) implements Verdict {}

        /** Beyond the bound: drop it or refresh it. */
        record Stale(long lag, int maxLag) implements Verdict {}
    }

    public static long lag(long sampleVersion, long currentVersion) {
        if (sampleVersion < 0 || currentVersion < 0) {
            throw new IllegalArgumentException("policy versions must be >= 0, got sample v" + sampleVersion + ", current v" + currentVersion);
        }
        if (sampleVersion > currentVersion) {
            throw new IllegalArgumentException("sample policy v" + sampleVersion + " is newer than the current v" + currentVersion);
        }
        return currentVersion - sampleVersion;
    }

    public Verdict check(long sampleVersion, long currentVersion) {
        long lag = lag(sampleVersion, currentVersion);
        return lag <= maxLag ? new Verdict.Fresh(lag) : new Verdict.Stale(lag, maxLag);
    }

    /** Checks a sample and records it as used (fresh) or rejected (stale) in the histograms. */
    public synchronized Verdict account(long sampleVersion, long currentVersion) {
        Verdict v = check(sampleVersion, currentVersion);
        (v instanceof Verdict.Fresh ? used : rejected).merge(v.lag(), 1L, Long::sum);
        return v;
    }

    /** Lag → number of samples used with that lag. */
    public synchronized Map<Long, Long> usedHistogram() {
        return Map.copyOf(used);
    }

    /** Lag → number of samples rejected as stale. */
    public synchronized Map<Long, Long> rejectedHistogram() {
        return Map.copyOf(rejected);
    }

    public int maxLag() {
        return maxLag;
    }
}
