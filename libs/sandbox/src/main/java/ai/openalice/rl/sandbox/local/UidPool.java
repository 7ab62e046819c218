package ai.openalice.rl.sandbox.local;

import ai.openalice.rl.sandbox.SandboxException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Leases host uids to sandboxes, one uid per live sandbox. A lease is an OS file lock, so it is
 * shared correctly by several runner processes on one host and released by the kernel when a
 * runner dies.
 */
final class UidPool {
    /** Where leases live when sandboxes run as their own uids: one folder per host, whatever the sandbox root. */
    static final Path HOST_LEASES = Path.of("/run/lock/alice-rl-uids");

    private final Path dir;
    private final int base;
    private final int count;

    UidPool(Path dir, int base, int count) throws IOException {
        this.dir = Files.createDirectories(dir);
        this.base = base;
        this.count = count;
    }

    /** A held uid; {@link #close()} gives it back. */
    record Lease(int uid, FileChannel channel, FileLock lock) implements AutoCloseable {
        @Override
        public void close() {
            try {
                lock.release();
                channel.close();
            } catch (IOException ignored) {
                // closing the channel releases the lock anyway
            }
        }
    }

    Lease acquire() {
        int start = ThreadLocalRandom.current().nextInt(count);
        for (int i = 0; i < count; i++) {
            int uid = base + (start + i) % count;
            try {
                FileChannel ch = FileChannel.open(dir.resolve(uid + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock lock;
                try {
                    lock = ch.tryLock();
                } catch (OverlappingFileLockException e) {
                    lock = null; // held by this JVM
                }
                if (lock != null) {
                    return new Lease(uid, ch, lock);
                }
                ch.close();
            } catch (IOException e) {
                throw new SandboxException(SandboxException.Reason.IO, "cannot lease a uid in " + dir + ": " + e.getMessage(), e);
            }
        }
        throw new SandboxException(SandboxException.Reason.START_FAILED,
                "all " + count + " sandbox uids (" + base + ".." + (base + count - 1) + ") are in use on this host");
    }

    /** Whether {@code uid}'s lease is free (nobody holds it). */
    boolean isFree(int uid) {
        try (FileChannel ch = FileChannel.open(dir.resolve(uid + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            FileLock lock = ch.tryLock();
            if (lock != null) {
                lock.release();
                return true;
            }
            return false;
        } catch (OverlappingFileLockException e) {
            return false;
        } catch (IOException e) {
            return false;
        }
    }
}
