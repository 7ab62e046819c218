package ai.openalice.rl.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class BackoffTest {
    /** A random source that answers each draw with the given fraction of its bound (0 and 1 inclusive). */
    static RandomGenerator fractions(double... f) {
        return new RandomGenerator() {
            int i;

            @Override
            public long nextLong() {
                throw new UnsupportedOperationException();
            }

            @Override
            public long nextLong(long bound) {
                return Math.round(f[i++ % f.length] * (bound - 1));
            }
        };
    }

    @Test
    void theBoundDoublesToItsCapAndEachPauseIsDrawnUnderIt() {
        var b = Backoff.of(Duration.ofMillis(500), Duration.ofSeconds(5), fractions(1, 0, 0.5, 1, 1, 1));
        // bounds 500, 1000, 2000, 4000, 5000, 5000; the source gives all of it, nothing, half, all...
        long[] expected = {500, 0, 1000, 4000, 5000, 5000};
        for (long e : expected) {
            assertEquals(e, b.nextMillis());
        }
        var plain = Backoff.withoutJitter(Duration.ofSeconds(1), Duration.ofSeconds(30));
        List<Long> pauses = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            pauses.add(plain.nextMillis());
        }
        assertEquals(List.of(1000L, 2000L, 4000L, 8000L, 16000L, 30000L, 30000L), pauses);
        assertThrows(IllegalArgumentException.class, () -> Backoff.of(Duration.ZERO, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> Backoff.of(Duration.ofSeconds(2), Duration.ofSeconds(1)));
    }

    /**
     * 100 consumers meet the same outage at the same instant and retry five times: without jitter
     * every retry of every consumer falls on the same five instants; with full jitter the n-th
     * retries spread over the whole of the n-th bound (uniform: a standard deviation near bound/√12).
     */
    @Test
    void jitterSpreadsTheRetriesOfConsumersThatMetTheSameOutage() {
        int consumers = 100;
        int retries = 5;
        long[][] plain = new long[consumers][retries];
        long[][] jittered = new long[consumers][retries];
        var seeds = new SplittableRandom(42);
        for (int c = 0; c < consumers; c++) {
            var p = Backoff.withoutJitter(Duration.ofMillis(500), Duration.ofSeconds(10));
            var j = Backoff.of(Duration.ofMillis(500), Duration.ofSeconds(10), seeds.split());
            long tp = 0;
            long tj = 0;
            for (int r = 0; r < retries; r++) {
                tp += p.nextMillis();
                tj += j.nextMillis();
                plain[c][r] = tp;
                jittered[c][r] = tj;
            }
        }
        for (int r = 0; r < retries; r++) {
            double sdPlain = sd(plain, r);
            double sdJitter = sd(jittered, r);
            System.out.printf("[backoff] retry %d of %d consumers: instants' standard deviation %.0f ms without jitter, %.0f ms with%n", r + 1,
                    consumers, sdPlain, sdJitter);
            assertEquals(0, sdPlain, "lock-step");
        }
        // the first retry's instant is uniform on [0, 500]: sd 500/sqrt(12) = 144 ms
        assertTrue(Math.abs(sd(jittered, 0) - 500 / Math.sqrt(12)) < 30, "first retry spread " + sd(jittered, 0));
    }

    private static double sd(long[][] instants, int r) {
        double mean = 0;
        for (long[] c : instants) {
            mean += c[r];
        }
        mean /= instants.length;
        double var = 0;
        for (long[] c : instants) {
            var += (c[r] - mean) * (c[r] - mean);
        }
        return Math.sqrt(var / instants.length);
    }
}
