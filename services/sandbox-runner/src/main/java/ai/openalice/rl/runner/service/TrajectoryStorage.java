package ai.openalice.rl.runner.service;

import ai.openalice.rl.artifacts.ArtifactStore;
import ai.openalice.rl.events.ArtifactRef;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.retry.Backoff;
import ai.openalice.rl.servicekit.DiskSpace;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import org.jboss.logging.Logger;

/**
 * Where an episode's trajectory goes: inline in the event when small, else written to the artifact
 * store and referenced by URI and sha256. A full volume is waited out (DiskSpace); any other write
 * failure (the bucket away, a permission) is tried {@value #TRIES} times with full-jitter pauses
 * under a bound doubling from {@code firstPause}, then {@link NotStored} — which the runner
 * reports as an infrastructure failure of its own, never as the episode's result.
 */
final class TrajectoryStorage {
    private static final Logger LOG = Logger.getLogger(TrajectoryStorage.class);
    /** Tries of a write that fails for another reason than a full volume. */
    static final int TRIES = 3;

    /** A trajectory the artifact store would not take, after {@link #TRIES} tries. */
    static final class NotStored extends RuntimeException {
        NotStored(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final ArtifactStore artifacts;
    private final Path folder;
    private final int inlineBytes;
    private final Duration firstPause;
    private final BooleanSupplier stopping;
    private final IntConsumer fullWaits;

    /** {@code folder}: the volume a full disk is measured on; {@code fullWaits} hears how often a write met a full volume. */
    TrajectoryStorage(ArtifactStore artifacts, Path folder, int inlineBytes, Duration firstPause, BooleanSupplier stopping, IntConsumer fullWaits) {
        this.artifacts = artifacts;
        this.folder = folder;
        this.inlineBytes = inlineBytes;
        this.firstPause = firstPause;
        this.stopping = stopping;
        this.fullWaits = fullWaits;
    }

    TrajectoryRef store(UUID rolloutId, Trajectory t) {
        byte[] json;
        try {
            json = EventCodec.mapper().writeValueAsBytes(t);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode the trajectory of " + rolloutId + ": " + e.getMessage(), e);
        }
        if (json.length <= inlineBytes) {
            return new TrajectoryRef.Inline(t);
        }
        var pauses = Backoff.of(firstPause, Duration.ofSeconds(30).compareTo(firstPause) < 0 ? firstPause : Duration.ofSeconds(30));
        for (int attempt = 1; ; attempt++) {
            try {
                int[] full = {0};
                ArtifactRef ref = DiskSpace.waitingForRoom("the trajectory of " + rolloutId, folder, () -> artifacts.write(rolloutId + ".json", json),
                        stopping, () -> full[0]++);
                fullWaits.accept(full[0]);
                return new TrajectoryRef.Stored(ref);
            } catch (RuntimeException e) { // the store's error as waitingForRoom explains it (UncheckedIOException), or its client's own
                if (attempt >= TRIES || stopping.getAsBoolean()) {
                    throw new NotStored("the trajectory of " + rolloutId + " could not be stored (" + attempt + " tries): " + e.getMessage(), e);
                }
                LOG.warnf("the trajectory of %s could not be stored (try %d of %d): %s; trying again", rolloutId, attempt, TRIES, e.getMessage());
                try {
                    pauses.sleep();
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new NotStored("interrupted while storing the trajectory of " + rolloutId, ie);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new NotStored("interrupted while waiting for room for the trajectory of " + rolloutId, e);
            }
        }
    }
}
