package ai.openalice.rl.events;

import java.util.UUID;

/**
 * An episode that ended: its patch, its trajectory, why it ended, and where the time went.
 * {@code taskVersion} is the task revision the episode ran (from the request), so the verifier
 * judges it against the same hidden tests, and {@code contentHash} that revision's content hash (from the
 * request; null from producers that predate it); {@code groupSize} is its GRPO group's size, for the trainer.
 */
public record RolloutCompleted(
        String taskId,
        UUID groupId,
        UUID rolloutId,
        long policyVersion,
        int taskVersion,
        @Added("tasks.accepted") String contentHash,
        int groupSize,
        int attempt,
        String runnerId,
        Termination termination,
        Failure error,
        String patch,
        TrajectoryRef trajectory,
        Stats stats) implements RolloutEvent {

    /** An infrastructure failure that ended the episode (termination {@code infra_error}). */
    public record Failure(String kind, String message) {}

    /** Counts and timings of the episode. */
    public record Stats(int turns, long promptTokens, long completionTokens, long wallTimeMs, long policyTimeMs, long toolTimeMs) {}
}
