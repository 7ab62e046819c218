package ai.openalice.rl.events;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.util.Objects;

/** An episode that ended: its header (as requested), its patch, its trajectory, why it ended, and where the time went. */
public record RolloutCompleted(
        RolloutRef ref,
        String runnerId,
        Termination termination,
        Failure error,
        String patch,
        TrajectoryRef trajectory,
        Stats stats,
        @Added("patch size limit") Long patchOmittedBytes) implements RolloutEvent {

    @JsonCreator
    public RolloutCompleted {
        Objects.requireNonNull(ref, "ref");
        Objects.requireNonNull(termination, "termination");
        Objects.requireNonNull(trajectory, "trajectory");
        if (patchOmittedBytes != null && (patchOmittedBytes < 0 || (patch != null && !patch.isEmpty()))) {
            throw new IllegalArgumentException("patchOmittedBytes is the size of a diff left out: non-negative, with an empty patch");
        }
    }

    /** An episode whose whole diff travels (every producer before the patch size limit). */
    public RolloutCompleted(RolloutRef ref, String runnerId, Termination termination, Failure error, String patch, TrajectoryRef trajectory,
            Stats stats) {
        this(ref, runnerId, termination, error, patch, trajectory, stats, null);
    }

    /** An infrastructure failure that ended the episode (termination {@code infra_error}). */
    public record Failure(String kind, String message) {}

    /** Counts and timings of the episode. */
    public record Stats(int turns, long promptTokens, long completionTokens, long wallTimeMs, long policyTimeMs, long toolTimeMs) {}
}
