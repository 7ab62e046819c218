package ai.openalice.rl.events;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.util.List;
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
        @Added("patch size limit") Long patchOmittedBytes,
        @Added("reward-hack attempts") List<HackAttempt> hackAttempts) implements RolloutEvent {

    @JsonCreator
    public RolloutCompleted {
        hackAttempts = hackAttempts == null ? List.of() : List.copyOf(hackAttempts);
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
        this(ref, runnerId, termination, error, patch, trajectory, stats, null, List.of());
    }

    /** The same with a diff left out for its size (no reward-hack attempts read). */
    public RolloutCompleted(RolloutRef ref, String runnerId, Termination termination, Failure error, String patch, TrajectoryRef trajectory,
            Stats stats, Long patchOmittedBytes) {
        this(ref, runnerId, termination, error, patch, trajectory, stats, patchOmittedBytes, List.of());
    }

    /**
     * An attempt of the agent's at the verdict rather than the bug, read by the runner from its calls:
     * the turn, what it went after ({@code test_edit}, {@code test_config}, {@code skip_marker},
     * {@code exit_code}, {@code verifier_path}) and the path or words that say so.
     */
    public record HackAttempt(int turn, String kind, String detail) {}

    /** An infrastructure failure that ended the episode (termination {@code infra_error}). */
    public record Failure(String kind, String message) {}

    /** Counts and timings of the episode. */
    public record Stats(int turns, long promptTokens, long completionTokens, long wallTimeMs, long policyTimeMs, long toolTimeMs) {}
}
