package ai.openalice.rl.servicekit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * Deletes the files of an artifact folder (not its subfolders) last written more than {@code keep}
 * ago: the artifact store's trajectories by age. Several replicas may prune one shared folder: a
 * file another one deleted first is skipped.
 */
public final class ArtifactRetention {
    private ArtifactRetention() {}

    /** What one pass deleted. */
    public record Pruned(long files, long bytes) {}

    public static Pruned prune(Path dir, Duration keep, Instant now) {
        if (!Files.isDirectory(dir)) {
            return new Pruned(0, 0);
        }
        Instant cutoff = now.minus(keep);
        long files = 0;
        long bytes = 0;
        try (var list = Files.list(dir)) {
            for (Path f : (Iterable<Path>) list::iterator) {
                try {
                    if (Files.isRegularFile(f) && Files.getLastModifiedTime(f).toInstant().isBefore(cutoff)) {
                        long size = Files.size(f);
                        Files.delete(f);
                        files++;
                        bytes += size;
                    }
                } catch (NoSuchFileException gone) {
                    // another replica pruned it first
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prune " + dir + ": " + e.getMessage(), e);
        }
        return new Pruned(files, bytes);
    }
}
