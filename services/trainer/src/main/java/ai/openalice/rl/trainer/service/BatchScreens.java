package ai.openalice.rl.trainer.service;

import ai.openalice.rl.artifacts.ArtifactCorruptException;
import ai.openalice.rl.artifacts.ArtifactStore;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.trainer.repository.TrainerStore;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * What the trainer refuses of the ready groups before it plans a batch, each refusal settled as
 * dropped with its reason (in the ledger, {@code trainer_dropped_total} and the step's tally): a
 * group sampled at another temperature than the loss uses, a group with a member whose trajectory
 * is gone from the artifact store, and — found while the batch is planned — a group with a member
 * whose trajectory is there but unusable (its bytes are not the ones the event named, or they are
 * not a trajectory). A trajectory that cannot be read because the store is away is none of these:
 * it fails the batch, which is tried again once the store is back.
 */
final class BatchScreens {
    private static final Logger LOG = Logger.getLogger(BatchScreens.class);

    /** A member's stored trajectory that reading again cannot mend. */
    static final class UnusableTrajectory extends RuntimeException {
        final UUID groupId;

        UnusableTrajectory(UUID groupId, String message, Throwable cause) {
            super(message, cause);
            this.groupId = groupId;
        }
    }

    private final TrainerStore store;
    private final TrainerMeters meters;
    private final ArtifactStore artifacts;

    BatchScreens(TrainerStore store, TrainerMeters meters, ArtifactStore artifacts) {
        this.store = store;
        this.meters = meters;
        this.artifacts = artifacts;
    }

    /** Settles, as dropped, the groups sampled at another temperature than {@code temperature}; returns the rest. */
    List<TrainerStore.ReadyGroup> refuseOffTemperature(List<TrainerStore.ReadyGroup> fresh, double temperature, StepTally batch) {
        return refuse(fresh, TemperatureScreen.offTemperature(fresh, temperature), "temperature", batch);
    }

    /**
     * Settles, as dropped (artifact_missing), the groups with a member whose trajectory file is gone
     * (pruned by the runner's retention, a lost volume): the step goes on without them, instead of
     * failing on them again and again.
     */
    List<TrainerStore.ReadyGroup> refuseMissingArtifacts(List<TrainerStore.ReadyGroup> fresh, StepTally batch) {
        var missing = new LinkedHashMap<UUID, String>();
        for (var g : fresh) {
            for (var m : g.members()) {
                String uri = missingArtifact(artifacts, m);
                if (uri != null) {
                    missing.put(g.groupId(), "the trajectory of " + m.rolloutId() + " is gone from the artifact store (" + uri + ")");
                    break;
                }
            }
        }
        return refuse(fresh, missing, "artifact_missing", batch);
    }

    /** Settles group {@code e.groupId} as dropped (trajectory_unusable); returns the rest of {@code fresh}. */
    List<TrainerStore.ReadyGroup> refuseUnusable(List<TrainerStore.ReadyGroup> fresh, UnusableTrajectory e, StepTally batch) {
        return refuse(fresh, Map.of(e.groupId, e.getMessage()), "trajectory_unusable", batch);
    }

    private List<TrainerStore.ReadyGroup> refuse(List<TrainerStore.ReadyGroup> fresh, Map<UUID, String> refused, String reason, StepTally batch) {
        if (refused.isEmpty()) {
            return fresh;
        }
        store.drop(refused);
        meters.dropped(Map.of(reason, (long) refused.size()));
        batch.dropped(reason, refused.size());
        refused.forEach((group, why) -> LOG.warnf("group %s refused: %s", group, why));
        return fresh.stream().filter(g -> !refused.containsKey(g.groupId())).toList();
    }

    /** The URI of a member's stored trajectory when the file is not there (null: inline, or present). */
    static String missingArtifact(ArtifactStore artifacts, TrainerStore.Member m) {
        if (m.infra() || m.masked() || !(m.trajectory() instanceof TrajectoryRef.Stored s)) { // only members trained on are read
            return null;
        }
        return artifacts.exists(s.artifact()) ? null : s.artifact().uri();
    }

    /**
     * A member's turns. A stored trajectory is checked against the sha256 the event carries: a file
     * replaced or cut short, or one that is not a trajectory, is {@link UnusableTrajectory}; a store
     * that cannot be read is an IllegalStateException naming the member (the batch is tried again).
     */
    List<Turn> turns(TrainerStore.Member m) {
        try {
            return artifacts.trajectory(m.trajectory()).turns();
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof ArtifactCorruptException || e.getCause() instanceof JsonProcessingException) {
                throw new UnusableTrajectory(m.groupId(), "the trajectory of " + m.rolloutId() + " cannot be trained on: " + e.getMessage(), e);
            }
            throw new IllegalStateException(m.rolloutId() + ": " + e.getMessage(), e);
        }
    }
}
