package ai.openalice.rl.events;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The verifier's verdict on one rollout's patch, with the outcome of every listed test, and the
 * episode it judged (forwarded from {@code rollouts.completed}), so that rubric-prm scores from
 * this event alone.
 */
public record VerificationCompleted(
        RolloutRef ref,
        VerificationStatus status,
        boolean resolved,
        Map<String, TestStatus> failToPass,
        Map<String, TestStatus> passToPass,
        List<String> flaky,
        long durationMs,
        ArtifactRef log,
        String error,
        Episode episode,
        @Added("verdicts explain themselves") Explanation explanation) implements RolloutEvent {

    /** A verdict without an explanation (the tests judged the patch, or an event written before explanations). */
    public VerificationCompleted(RolloutRef ref, VerificationStatus status, boolean resolved, Map<String, TestStatus> failToPass,
            Map<String, TestStatus> passToPass, List<String> flaky, long durationMs, ArtifactRef log, String error, Episode episode) {
        this(ref, status, resolved, failToPass, passToPass, flaky, durationMs, log, error, episode, null);
    }

    /**
     * Why the tests did not judge the patch ({@code cause}: environment, patch_failed, timeout, infra;
     * null when they did), the first test run's exit status, and the end of its output.
     */
    public record Explanation(String cause, Integer exitCode, String logTail) {}

    public VerificationCompleted {
        Objects.requireNonNull(ref, "ref");
        Objects.requireNonNull(episode, "episode");
        failToPass = Map.copyOf(failToPass);
        passToPass = Map.copyOf(passToPass);
        flaky = List.copyOf(flaky);
        if (resolved != (status == VerificationStatus.RESOLVED)) {
            throw new IllegalArgumentException("resolved=" + resolved + " contradicts status " + status.wire());
        }
    }

    /** What the episode left, as the runner reported it: why it ended, its patch and its trajectory. */
    public record Episode(Termination termination, String patch, TrajectoryRef trajectory) {
        public Episode {
            Objects.requireNonNull(termination, "termination");
            Objects.requireNonNull(trajectory, "trajectory");
        }

        public static Episode of(RolloutCompleted c) {
            return new Episode(c.termination(), c.patch() == null ? "" : c.patch(), c.trajectory());
        }
    }
}
