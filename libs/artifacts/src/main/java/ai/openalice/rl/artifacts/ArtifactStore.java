package ai.openalice.rl.artifacts;

import ai.openalice.rl.events.ArtifactRef;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * Where what is too large for an event is kept — an episode's trajectory, a test log, a
 * checkpoint's files — and read back by the services the event reaches. An artifact is named by
 * the {@link ArtifactRef} its writer puts in the event: a URI, the sha256 of its bytes and their
 * count; a reader gets the bytes only when they are those ({@link ArtifactCorruptException} otherwise), never a truncated or replaced file.
 */
public interface ArtifactStore {

    /** Writes {@code bytes} as {@code key} (a relative path, e.g. {@code trajectories/<id>.json}), atomically: a reader sees all of it or nothing. */
    ArtifactRef write(String key, byte[] bytes) throws IOException;

    /** The reference an artifact written as {@code key} with that sha256 and size has (whether or not it is there). */
    ArtifactRef refOf(String key, String sha256, long bytes);

    /** Writes the file {@code source} as {@code key}, streamed (what may not fit in memory: a checkpoint's weights), atomically. */
    ArtifactRef write(String key, Path source) throws IOException;

    /**
     * Copies the artifact {@code ref} names to {@code target}, streamed, replacing it only when the
     * bytes are the ones the reference names ({@link ArtifactCorruptException} otherwise, and
     * {@code target} is left as it was).
     */
    void copyTo(ArtifactRef ref, Path target) throws IOException;

    /**
     * The bytes {@code ref} names. {@link java.nio.file.NoSuchFileException} when the artifact is
     * gone (retention, or a lost volume); {@link ArtifactCorruptException} when its bytes are not the
     * ones the reference was written with.
     */
    byte[] read(ArtifactRef ref) throws IOException;

    /** Whether the artifact {@code ref} names is there (its content is checked on {@link #read}). */
    boolean exists(ArtifactRef ref);

    /** Deletes the artifact {@code ref} names; nothing when it is already gone. */
    void delete(ArtifactRef ref) throws IOException;

    /** Deletes the artifacts directly under {@code prefix} written more than {@code keep} before {@code now}; what went. */
    Pruned prune(String prefix, Duration keep, Instant now) throws IOException;

    /** Deletes every artifact directly under {@code prefix} (a checkpoint's files, when its version goes). */
    default Pruned deleteAll(String prefix) throws IOException {
        return prune(prefix, Duration.ZERO, Instant.MAX);
    }

    /**
     * The trajectory {@code ref} holds or names: an inline one as it came, a stored one read (checked
     * against the sha256 the event carries: a file replaced or cut short is refused) and decoded; an
     * IllegalStateException naming the artifact when it cannot be read.
     */
    default Trajectory trajectory(TrajectoryRef ref) {
        return switch (ref) {
            case TrajectoryRef.Inline i -> i.trajectory();
            case TrajectoryRef.Stored s -> {
                try {
                    yield EventCodec.read(EventCodec.mapper().readTree(read(s.artifact())), Trajectory.class);
                } catch (IOException e) {
                    throw new IllegalStateException("cannot read the trajectory at " + s.artifact().uri() + ": " + e.getMessage(), e);
                }
            }
        };
    }

    /** What one prune deleted. */
    record Pruned(long artifacts, long bytes) {}
}
