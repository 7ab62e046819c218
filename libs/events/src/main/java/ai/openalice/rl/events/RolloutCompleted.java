package ai.openalice.rl.events;

import java.util.Objects;

/** An episode that ended: its header (as requested), its patch, its trajectory, why it ended, and where the time went. */
public record RolloutCompleted(
        RolloutRef ref,
        String runnerId,
        Termination termination,
        Failure error,
        String patch,
        TrajectoryRef trajectory,
        Stats stats) implements RolloutEvent {

    public RolloutCompleted {
        Objects.requireNonNull(ref, "ref");
        Objects.requireNonNull(termination, "termination");
        Objects.requireNonNull(trajectory, "trajectory");
    }

    /** An infrastructure failure that ended the episode (termination {@code infra_error}). */
    public record Failure(String kind, String message) {}

    /** Counts and timings of the episode. */
    public record Stats(int turns, long promptTokens, long completionTokens, long wallTimeMs, long policyTimeMs, long toolTimeMs) {}
}
