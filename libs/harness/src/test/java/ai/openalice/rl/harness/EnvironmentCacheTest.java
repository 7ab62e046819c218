package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cache's size bound: what it removes, in which order, and what it never removes. */
class EnvironmentCacheTest {
    private static final long MIB = 1L << 20;
    private static final Instant NOW = Instant.parse("2026-12-06T12:00:00Z");
    /** No build of this process holds an environment's lock. */
    private static final Function<Path, ReentrantLock> NO_BUILDS = h -> new ReentrantLock();

    @TempDir
    Path dir;

    /** An environment of {@code mib} MiB of file data, last used {@code hoursAgo} hours before NOW. */
    private Path env(String name, int mib, double hoursAgo) throws IOException {
        Path home = Files.createDirectories(dir.resolve("cache").resolve(name));
        Files.write(home.resolve("data"), new byte[(int) (mib * MIB)]);
        EnvironmentCache.sized(home);
        Files.writeString(home.resolve(".complete"), "{}\n");
        EnvironmentCache.used(home);
        Files.setLastModifiedTime(home.resolve(".used"), FileTime.from(NOW.minus(Duration.ofMinutes((long) (hoursAgo * 60)))));
        return home;
    }

    @Test
    void theEnvironmentsUsedLongestAgoGoUntilTheCacheIsUnderItsBound() throws IOException {
        Path a = env("a", 4, 5);
        Path b = env("b", 4, 9);
        Path c = env("c", 4, 3);
        Path d = env("d", 4, 0);
        // 4 environments of 4 MiB (and a few KiB of folder and marks): under 10 MiB two must go,
        // b (9 h) then a (5 h); c (3 h) stays, under the bound once the two are gone
        var removed = EnvironmentCache.trim(dir.resolve("cache"), 10 * MIB, d, NOW, NO_BUILDS);
        assertEquals(List.of(b, a), removed);
        assertFalse(Files.exists(a) || Files.exists(b));
        assertTrue(Files.exists(c.resolve("data")) && Files.exists(d.resolve("data")));
        try (var s = Files.list(dir)) {
            assertEquals(List.of(dir.resolve("cache")), s.toList(), "nothing is left beside the cache");
        }
    }

    @Test
    void oneUsedRecentlyTheOneJustBuiltAndOneWhoseLockIsHeldStay() throws IOException, InterruptedException {
        Path recent = env("recent", 4, 1.5); // within MIN_IDLE (2 h)
        Path built = env("built", 4, 10);
        Path locked = env("locked", 4, 8);
        Path old = env("old", 4, 6);
        Path cache = dir.resolve("cache");
        // another process (a build in another service) holds the lock, as Java's FileChannel.lock takes it (fcntl)
        var holder = new ProcessBuilder("python3", "-c", "import fcntl, sys, time\nf = open(sys.argv[1], 'w')\nfcntl.lockf(f, fcntl.LOCK_EX)\n"
                + "print('held', flush=True)\ntime.sleep(120)", cache.resolve("locked.lock").toString()).redirectErrorStream(true).start();
        try {
            assertEquals("held", new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8)).readLine());
            // a bound of 1 MiB cannot be kept: only "old" may go
            assertEquals(List.of(old), EnvironmentCache.trim(cache, MIB, built, NOW, NO_BUILDS));
        } finally {
            holder.destroy();
            holder.waitFor();
        }
        assertTrue(Files.exists(recent.resolve("data")) && Files.exists(built.resolve("data")) && Files.exists(locked.resolve("data")));
        // the lock released, "locked" goes as well
        assertEquals(List.of(locked), EnvironmentCache.trim(cache, MIB, built, NOW, NO_BUILDS));
    }

    @Test
    void noBoundRemovesNothingAndAFailedBuildIsDatedByItsFolder() throws IOException {
        Path cache = dir.resolve("cache");
        Path failed = Files.createDirectories(cache.resolve("failed"));
        Files.write(failed.resolve("partial"), new byte[(int) (2 * MIB)]);
        Files.setLastModifiedTime(failed, FileTime.from(NOW.minus(Duration.ofHours(3))));
        Path fresh = env("fresh", 2, 0);
        assertEquals(List.of(), EnvironmentCache.trim(cache, 0, fresh, NOW, NO_BUILDS));
        // no .size and no .used: measured with du, dated by the folder, and removed first
        assertEquals(List.of(failed), EnvironmentCache.trim(cache, 3 * MIB, fresh, NOW, NO_BUILDS));
    }
}
