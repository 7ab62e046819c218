package ai.openalice.rl.events;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The verifier's verdict on one rollout's patch, with the outcome of every listed test. */
public record VerificationCompleted(
        String taskId,
        UUID groupId,
        UUID rolloutId,
        long policyVersion,
        VerificationStatus status,
        boolean resolved,
        Map<String, TestStatus> failToPass,
        Map<String, TestStatus> passToPass,
        List<String> flaky,
        long durationMs,
        ArtifactRef log,
        String error) implements RolloutEvent {

    public VerificationCompleted {
        failToPass = Map.copyOf(failToPass);
        passToPass = Map.copyOf(passToPass);
        flaky = List.copyOf(flaky);
        if (resolved != (status == VerificationStatus.RESOLVED)) {
            throw new IllegalArgumentException("resolved=" + resolved + " contradicts status " + status.wire());
        }
    }
}
