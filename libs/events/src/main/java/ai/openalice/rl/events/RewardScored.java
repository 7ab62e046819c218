package ai.openalice.rl.events;

import java.util.List;
import java.util.UUID;

/**
 * The composed reward of one rollout ({@code R = (1−γ)·sPrm} if {@code rExec = 0}, {@code γ + (1−γ)·sPrm}
 * if {@code rExec = 1}), or its masking: a masked rollout has no reward and is excluded from its
 * group's baseline.
 */
public record RewardScored(
        String taskId,
        UUID groupId,
        UUID rolloutId,
        long policyVersion,
        int groupSize,
        boolean masked,
        String maskReason,
        Termination termination,
        Integer rExec,
        Double sPrm,
        double gamma,
        Double reward,
        Integer rubricVersion,
        List<Criterion> criteria,
        TrajectoryRef trajectory) implements RolloutEvent {

    public RewardScored {
        criteria = List.copyOf(criteria);
        if (masked && (reward != null || rExec != null)) {
            throw new IllegalArgumentException("a masked rollout carries no reward");
        }
        if (!masked && (reward == null || rExec == null)) {
            throw new IllegalArgumentException("an unmasked rollout needs rExec and reward");
        }
    }

    /** One rubric criterion's weight and score in [0, 1]. */
    public record Criterion(String id, double weight, double score, String detail) {}
}
