package ai.openalice.rl.artifacts;

import ai.openalice.rl.events.ArtifactRef;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * A service's artifact store from its settings: it writes where its location says — a folder, or
 * {@code s3://bucket/prefix} — and reads, checks and deletes any reference, {@code file:} or
 * {@code s3:}, whoever wrote it (a trainer reads what the runners wrote, wherever they wrote it).
 */
public final class ArtifactStores {
    private ArtifactStores() {}

    /**
     * The store writing to {@code location}: {@code s3://bucket[/prefix]} (through {@code s3}), or
     * a folder. Without {@code s3} settings only {@code file:} references can be read.
     */
    public static Routed open(String location, Optional<S3Settings> s3) {
        URI uri = location.startsWith("s3://") ? URI.create(location) : null;
        if (uri != null && (uri.getHost() == null || uri.getHost().isBlank())) {
            throw new IllegalArgumentException("an S3 artifact location is s3://bucket[/prefix], got " + location);
        }
        if (uri != null && s3.isEmpty()) {
            throw new IllegalArgumentException("artifacts go to " + location + " but no S3 settings were given");
        }
        S3ArtifactStore bucket = s3.map(S3ArtifactStore::client)
                .map(c -> uri != null ? new S3ArtifactStore(c, uri.getHost(), uri.getPath().replaceFirst("^/", "")) : new S3ArtifactStore(c, "", ""))
                .orElse(null);
        LocalArtifactStore folder = uri == null ? new LocalArtifactStore(Path.of(location)) : LocalArtifactStore.reader();
        return new Routed(uri != null ? bucket : folder, folder, bucket);
    }

    /** Writes and prunes in one store; reads, checks and deletes by the reference's scheme. */
    public static final class Routed implements ArtifactStore, AutoCloseable {
        private final ArtifactStore home;
        private final LocalArtifactStore files;
        private final S3ArtifactStore s3;

        Routed(ArtifactStore home, LocalArtifactStore files, S3ArtifactStore s3) {
            this.home = home;
            this.files = files;
            this.s3 = s3;
        }

        /** The folder written to, for a disk-space watch; empty when writes go to a bucket. */
        public Optional<Path> folder() {
            return home == files ? Optional.of(files.root()) : Optional.empty();
        }

        @Override
        public ArtifactRef write(String key, byte[] bytes) throws IOException {
            return home.write(key, bytes);
        }

        @Override
        public ArtifactRef write(String key, Path source) throws IOException {
            return home.write(key, source);
        }

        @Override
        public ArtifactRef refOf(String key, String sha256, long bytes) {
            return home.refOf(key, sha256, bytes);
        }

        @Override
        public void copyTo(ArtifactRef ref, Path target) throws IOException {
            by(ref).copyTo(ref, target);
        }

        @Override
        public byte[] read(ArtifactRef ref) throws IOException {
            return by(ref).read(ref);
        }

        @Override
        public boolean exists(ArtifactRef ref) {
            return by(ref).exists(ref);
        }

        @Override
        public void delete(ArtifactRef ref) throws IOException {
            by(ref).delete(ref);
        }

        @Override
        public Pruned prune(String prefix, Duration keep, Instant now) throws IOException {
            return home.prune(prefix, keep, now);
        }

        private ArtifactStore by(ArtifactRef ref) {
            String scheme = URI.create(ref.uri()).getScheme();
            if ("file".equals(scheme)) {
                return files;
            }
            if ("s3".equals(scheme)) {
                if (s3 == null) {
                    throw new IllegalStateException(ref.uri() + " is in an S3 bucket and this service was given no S3 settings (alice.artifacts.s3.*)");
                }
                return s3;
            }
            throw new IllegalArgumentException("an artifact reference is a file: or s3: URI, got " + ref.uri());
        }

        @Override
        public void close() {
            if (s3 != null) {
                s3.close();
            }
        }
    }
}
