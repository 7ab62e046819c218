package ai.openalice.rl.harness;

import ai.openalice.rl.sandbox.HostCommand;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The size bound of the Python environment cache. Environments are built per distinct spec and
 * never change, so a run over many repositories and versions only adds to the folder (an xarray
 * environment is about 1.1 GB, one per instance whose setup files differ). After each build, the
 * environments used longest ago are removed until the cache is under its bound — never one used in
 * the last {@link #MIN_IDLE} (a verification or an episode may still read it: their time limits are
 * far below it), nor one whose build lock another build or removal holds, nor the one just built.
 * So the cache can pass its bound by what has been used within that time.
 *
 * <p>An environment is moved aside (renamed) before it is removed, so that a verification that
 * looks for it then finds no {@code .complete} and builds it again, under its lock; one that found
 * it the instant before fails to mount it, an infrastructure error that is tried again.
 * Written here rather than taken from a library: the cache is shared by processes (verifier,
 * runner, command line) through file locks and file times, which no cache library we could use
 * reads.
 */
final class EnvironmentCache {
    static final Duration MIN_IDLE = Duration.ofHours(2);
    private static final String USED = ".used";
    private static final String SIZE = ".size";

    private EnvironmentCache() {
    }

    /** Marks {@code home} as used now: what the bound removes last. */
    static void used(Path home) {
        try {
            Path used = home.resolve(USED);
            if (!Files.exists(used)) {
                Files.createFile(used);
            }
            Files.setLastModifiedTime(used, FileTime.from(Instant.now()));
        } catch (IOException e) {
            // the environment is still usable: only its place in the removal order is lost
        }
    }

    /** Records {@code home}'s size on disk, read once after its build (it does not change). */
    static void sized(Path home) throws IOException {
        Files.writeString(home.resolve(SIZE), Long.toString(measure(home)));
    }

    /**
     * Removes environments under {@code cache}, used longest ago first, until their sizes add up to
     * at most {@code maxBytes} (0: no bound). Returns the ones removed. {@code inProcess} gives the
     * lock this process's builds of an environment hold: the lock file is opened only while it is
     * held, because closing any channel on a file releases every record lock this process has on it
     * (POSIX), a build's too.
     */
    static List<Path> trim(Path cache, long maxBytes, Path keep, Instant now, Function<Path, ReentrantLock> inProcess) throws IOException {
        if (maxBytes <= 0 || !Files.isDirectory(cache)) {
            return List.of();
        }
        record Entry(Path home, long bytes, Instant lastUsed) {}
        var entries = new ArrayList<Entry>();
        long total = 0;
        try (Stream<Path> s = Files.list(cache)) {
            for (Path home : s.filter(Files::isDirectory).toList()) {
                long bytes = size(home);
                total += bytes;
                entries.add(new Entry(home, bytes, lastUsed(home)));
            }
        }
        entries.sort(Comparator.comparing(Entry::lastUsed));
        var removed = new ArrayList<Path>();
        for (Entry e : entries) {
            if (total <= maxBytes) {
                break;
            }
            if (e.home().equals(keep) || e.lastUsed().isAfter(now.minus(MIN_IDLE)) || !remove(cache, e.home(), inProcess.apply(e.home()))) {
                continue;
            }
            total -= e.bytes();
            removed.add(e.home());
        }
        return removed;
    }

    /** Removes {@code home} if no build or removal, here or in another process, holds its lock; false if one does. */
    private static boolean remove(Path cache, Path home, ReentrantLock inProcess) throws IOException {
        if (!inProcess.tryLock()) {
            return false;
        }
        try (var lock = FileChannel.open(cache.resolve(home.getFileName() + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            var held = tryLock(lock);
            if (held == null) {
                return false;
            }
            try {
                Path aside = cache.resolveSibling(cache.getFileName() + ".removing-" + home.getFileName() + "-" + System.nanoTime());
                Files.move(home, aside);
                HostCommand.run(List.of("rm", "-rf", aside.toString()), null, Duration.ofMinutes(10));
                return true;
            } finally {
                held.release();
            }
        } finally {
            inProcess.unlock();
        }
    }

    private static FileLock tryLock(FileChannel lock) throws IOException {
        try {
            return lock.tryLock();
        } catch (OverlappingFileLockException e) { // this process holds it
            return null;
        }
    }

    /** When {@code home} was last used: its mark, else its folder's own time (a build that failed, or one from before the marks). */
    private static Instant lastUsed(Path home) throws IOException {
        Path used = home.resolve(USED);
        return Files.getLastModifiedTime(Files.exists(used) ? used : home).toInstant();
    }

    private static long size(Path home) throws IOException {
        Path size = home.resolve(SIZE);
        if (Files.exists(size)) {
            try {
                return Long.parseLong(Files.readString(size).strip());
            } catch (NumberFormatException e) {
                // measured again below
            }
        }
        long bytes = measure(home);
        if (Files.exists(home.resolve(".complete"))) { // built before sizes were recorded: measured once
            Files.writeString(size, Long.toString(bytes));
        }
        return bytes;
    }

    /** Bytes on disk, as du counts them (blocks, hard links once). */
    private static long measure(Path home) throws IOException {
        var r = HostCommand.run(List.of("du", "-sk", home.toString()), null, Duration.ofMinutes(5));
        String first = r.output().strip().split("\\s+")[0];
        try {
            return Long.parseLong(first) * 1024;
        } catch (NumberFormatException e) {
            throw new IOException("du could not measure " + home + ": " + r.output().strip());
        }
    }
}
