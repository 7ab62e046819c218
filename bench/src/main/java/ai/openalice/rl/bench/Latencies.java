package ai.openalice.rl.bench;

import java.util.Arrays;

/** Percentiles of a set of latencies in nanoseconds. */
record Latencies(long[] nanos) {
    Latencies {
        nanos = nanos.clone();
        Arrays.sort(nanos);
    }

    double percentileMs(double p) {
        int i = (int) Math.min(nanos.length - 1, Math.max(0, Math.ceil(p / 100.0 * nanos.length) - 1));
        return nanos[i] / 1e6;
    }

    double meanMs() {
        return Arrays.stream(nanos).average().orElse(0) / 1e6;
    }

    /** Runs op n times, one after another, and times each run. */
    static Latencies measure(Runnable op, int n) {
        long[] ns = new long[n];
        for (int i = 0; i < n; i++) {
            long s = System.nanoTime();
            op.run();
            ns[i] = System.nanoTime() - s;
        }
        return new Latencies(ns);
    }
}
