package ai.openalice.rl.servicekit;

import ai.openalice.rl.retry.Backoff;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileStore;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.ToLongFunction;
import org.jboss.logging.Logger;

/**
 * The disks a week-long run writes to — trajectories, checkpoints, the verifier's logs — fill. A
 * writer that fails says where and how much room was left ({@link #explain}); a service that can
 * wait rather than fail its work waits for room ({@link #awaitRoom}): the volume is an
 * infrastructure condition, never a reward of 0.
 */
public final class DiskSpace {
    private static final Logger LOG = Logger.getLogger(DiskSpace.class);

    private final List<Path> paths;
    private final long minFreeBytes;
    private final ToLongFunction<Path> usable;
    private final AtomicBoolean paused = new AtomicBoolean();

    /** Watches {@code paths}, each wanting at least {@code minFreeBytes} free; {@code usable} measures (tests inject one). */
    public DiskSpace(List<Path> paths, long minFreeBytes, ToLongFunction<Path> usable) {
        this.paths = List.copyOf(paths);
        this.minFreeBytes = minFreeBytes;
        this.usable = usable;
    }

    public static DiskSpace of(List<Path> paths, long minFreeBytes) {
        return new DiskSpace(paths, minFreeBytes, DiskSpace::usableBytes);
    }

    /** Whether the last look found a volume under its minimum (for a gauge and the status line). */
    public boolean paused() {
        return paused.get();
    }

    /** The least free space over the watched paths now, in bytes. */
    public long leastFree() {
        return paths.stream().mapToLong(usable).min().orElse(Long.MAX_VALUE);
    }

    /** The first watched path under its minimum, or null when every one has room. */
    public Path full() {
        for (Path p : paths) {
            if (usable.applyAsLong(p) < minFreeBytes) {
                return p;
            }
        }
        return null;
    }

    /**
     * Returns once every watched path has its minimum free, pausing (pauses of 1 s doubling to 30 s,
     * jittered) while one does not, or when {@code stopping} says so; logs the pause once and the end
     * of it. Returns whether there is room.
     */
    public boolean awaitRoom(String what, BooleanSupplier stopping) throws InterruptedException {
        var backoff = Backoff.of(Duration.ofSeconds(1), Duration.ofSeconds(30));
        for (Path p = full(); p != null; p = full()) {
            if (paused.compareAndSet(false, true)) {
                LOG.warnf("%s paused: %s, under the minimum of %s; waiting for room", what, describe(p), bytes(minFreeBytes));
            }
            if (stopping.getAsBoolean()) {
                return false;
            }
            backoff.sleep();
        }
        if (paused.compareAndSet(true, false)) {
            LOG.infof("%s: there is room again; going on", what);
        }
        return true;
    }

    /** A write that may meet a full volume. */
    public interface Write<T> {
        T run() throws IOException;
    }

    /**
     * Runs {@code write}; when it meets a full volume (ENOSPC or EDQUOT, thrown as is or as the
     * cause of a runtime exception) it waits (pauses of 1 s doubling to 30 s, jittered) and runs it
     * again — what was computed is kept, not dropped — calling {@code onFull} each time, until
     * {@code stopping}. The write must leave nothing behind when it fails (a partial file would keep
     * the volume full). Any other failure, or a full volume while stopping, is an error naming
     * {@code what}, {@code where} and the room left.
     */
    public static <T> T waitingForRoom(String what, Path where, Write<T> write, BooleanSupplier stopping, Runnable onFull)
            throws InterruptedException {
        var backoff = Backoff.of(Duration.ofSeconds(1), Duration.ofSeconds(30));
        for (int full = 0; ; full++) {
            try {
                T result = write.run();
                if (full > 0) {
                    LOG.infof("%s written to %s once the volume had room again", what, where);
                }
                return result;
            } catch (IOException | RuntimeException e) {
                if (!noSpace(e) || stopping.getAsBoolean()) {
                    if (e instanceof IOException io) {
                        throw explain(what, where, io);
                    }
                    throw noSpace(e) ? new IllegalStateException("cannot write " + what + " to " + where + ": " + e.getMessage() + " ("
                            + describe(where) + ")", e) : (RuntimeException) e;
                }
                if (full == 0) {
                    LOG.warnf("cannot write %s to %s: the volume is full (%s); waiting for room", what, where, describe(where));
                }
                onFull.run();
                backoff.sleep();
            }
        }
    }

    /** {@link #waitingForRoom} of one file's bytes (a partial file removed after each failure); returns how often the volume was full. */
    public static int writeWaitingForRoom(Path file, byte[] bytes, String what, BooleanSupplier stopping) throws InterruptedException {
        int[] full = {0};
        waitingForRoom(what, file, () -> {
            try {
                return Files.write(file, bytes);
            } catch (IOException e) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException gone) {
                    e.addSuppressed(gone);
                }
                throw e;
            }
        }, stopping, () -> full[0]++);
        return full[0];
    }

    /** The usable bytes of the volume {@code p} is on (its nearest existing folder's). */
    public static long usableBytes(Path p) {
        try {
            return store(p).getUsableSpace();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot measure the free space at " + p + ": " + e.getMessage(), e);
        }
    }

    /** "3.2 MiB free of 1.0 GiB at PATH". */
    public static String describe(Path p) {
        try {
            var store = store(p);
            return bytes(store.getUsableSpace()) + " free of " + bytes(store.getTotalSpace()) + " at " + p;
        } catch (IOException e) {
            return "free space at " + p + " unknown (" + e.getMessage() + ")";
        }
    }

    /** The file store of {@code p}'s nearest existing folder (a path not made yet lands on its parent's volume). */
    private static FileStore store(Path p) throws IOException {
        Path q = p.toAbsolutePath();
        while (q != null && !Files.exists(q)) {
            q = q.getParent();
        }
        return Files.getFileStore(q == null ? Path.of("/") : q);
    }

    /** Whether {@code e} (or a cause) is the volume being full (ENOSPC, or a quota: EDQUOT). */
    public static boolean noSpace(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String m = c instanceof FileSystemException f ? f.getReason() : c.getMessage();
            if (c instanceof IOException && m != null && (m.contains("No space left on device") || m.contains("Disk quota exceeded"))) {
                return true;
            }
        }
        return false;
    }

    /** A write's failure, saying what was written where and how much room the volume has. */
    public static UncheckedIOException explain(String what, Path p, IOException e) {
        return new UncheckedIOException("cannot write " + what + " to " + p + ": " + e.getMessage() + " (" + describe(p) + ")", e);
    }

    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
