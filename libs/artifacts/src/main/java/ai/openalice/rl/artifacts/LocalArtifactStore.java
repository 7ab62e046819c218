package ai.openalice.rl.artifacts;

import ai.openalice.rl.events.ArtifactRef;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;

/**
 * The artifact store as a folder: the embedded run's, or a volume every pod mounts at the same
 * path. References are {@code file:} URIs, absolute, so a service reads what another wrote where
 * both see that folder. Writes go to a temporary file beside the target and are moved into place,
 * so a reader (or a crash) never sees half an artifact, and a failed write leaves nothing behind
 * (a full disk stays as full as it was).
 */
public final class LocalArtifactStore implements ArtifactStore {
    private final Path root;

    public LocalArtifactStore(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** A store for reading (and checking) what others wrote: any {@code file:} reference, wherever its folder. */
    public static LocalArtifactStore reader() {
        return new LocalArtifactStore(Path.of("/"));
    }

    public Path root() {
        return root;
    }

    @Override
    public ArtifactRef write(String key, byte[] bytes) throws IOException {
        Path target = target(key);
        Path tmp = Checked.temporaryBeside(target);
        try {
            Files.write(tmp, bytes);
            Checked.moveIntoPlace(tmp, target);
        } catch (IOException | RuntimeException e) {
            deleteQuietly(tmp, e);
            throw e;
        }
        return new ArtifactRef(target.toUri().toString(), sha256(bytes), bytes.length);
    }

    @Override
    public ArtifactRef write(String key, Path source) throws IOException {
        Path target = target(key);
        Path tmp = Checked.temporaryBeside(target);
        try {
            Files.copy(source, tmp, StandardCopyOption.REPLACE_EXISTING);
            String sha = Checked.sha256(tmp);
            long size = Files.size(tmp);
            Checked.moveIntoPlace(tmp, target);
            return new ArtifactRef(target.toUri().toString(), sha, size);
        } catch (IOException | RuntimeException e) {
            deleteQuietly(tmp, e);
            throw e;
        }
    }

    @Override
    public ArtifactRef refOf(String key, String sha256, long bytes) {
        return new ArtifactRef(target(key).toUri().toString(), sha256, bytes);
    }

    @Override
    public void copyTo(ArtifactRef ref, Path target) throws IOException {
        try (var in = Files.newInputStream(path(ref))) {
            Checked.copy(ref, in, target);
        }
    }

    private Path target(String key) {
        Path target = root.resolve(key).normalize();
        if (!target.startsWith(root) || target.equals(root)) {
            throw new IllegalArgumentException("an artifact key is a relative path inside the store, got '" + key + "'");
        }
        return target;
    }

    private static void deleteQuietly(Path tmp, Exception cause) {
        try {
            Files.deleteIfExists(tmp);
        } catch (IOException gone) {
            cause.addSuppressed(gone);
        }
    }

    @Override
    public byte[] read(ArtifactRef ref) throws IOException {
        return Checked.bytes(ref, Files.readAllBytes(path(ref)));
    }

    @Override
    public boolean exists(ArtifactRef ref) {
        return Files.isRegularFile(path(ref));
    }

    @Override
    public void delete(ArtifactRef ref) throws IOException {
        Files.deleteIfExists(path(ref));
    }

    /** Several replicas may prune one shared folder: an artifact another one deleted first is skipped. Subfolders are left alone. */
    @Override
    public Pruned prune(String prefix, Duration keep, Instant now) throws IOException {
        Path dir = root.resolve(prefix).normalize();
        if (!Files.isDirectory(dir)) {
            return new Pruned(0, 0);
        }
        Instant cutoff = now.minus(keep);
        long artifacts = 0;
        long bytes = 0;
        try (var list = Files.list(dir)) {
            for (Path f : (Iterable<Path>) list::iterator) {
                try {
                    if (Files.isRegularFile(f) && Files.getLastModifiedTime(f).toInstant().isBefore(cutoff)) {
                        long size = Files.size(f);
                        Files.delete(f);
                        artifacts++;
                        bytes += size;
                    }
                } catch (NoSuchFileException gone) {
                    // another replica pruned it first
                }
            }
        }
        return new Pruned(artifacts, bytes);
    }

    /** The file a {@code file:} reference names. */
    static Path path(ArtifactRef ref) {
        URI uri = URI.create(ref.uri());
        if (!"file".equals(uri.getScheme())) {
            throw new IllegalArgumentException("a local artifact store reads file: URIs, got " + ref.uri());
        }
        return Path.of(uri);
    }

    /** Lower-case hex sha256 of {@code bytes}. */
    public static String sha256(byte[] bytes) {
        return Checked.sha256(bytes);
    }
}
