package ai.openalice.rl.events;

import java.util.List;
import java.util.Objects;

/**
 * The composed reward of one rollout ({@code R = (1−γ)·sPrm} if {@code rExec = 0}, {@code γ + (1−γ)·sPrm}
 * if {@code rExec = 1}), or its masking: a masked rollout has no reward and is excluded from its
 * group's baseline. {@code maskKind} says why for code, {@code maskReason} for people.
 * {@code stepUtilities}: the rubric's step utility of each turn's action given the turns before it
 * (null when masked, or from a producer before they were carried).
 */
public record RewardScored(
        RolloutRef ref,
        boolean masked,
        String maskReason,
        MaskKind maskKind,
        Termination termination,
        Integer rExec,
        Double sPrm,
        double gamma,
        Double reward,
        Integer rubricVersion,
        List<Criterion> criteria,
        TrajectoryRef trajectory,
        @Added("episode traces") List<Double> stepUtilities) implements RolloutEvent {

    public RewardScored {
        Objects.requireNonNull(ref, "ref");
        criteria = List.copyOf(criteria);
        stepUtilities = stepUtilities == null ? null : List.copyOf(stepUtilities);
        if (masked && maskKind == null) {
            throw new IllegalArgumentException("a masked rollout says why (maskKind)");
        }
        if (masked && (reward != null || rExec != null)) {
            throw new IllegalArgumentException("a masked rollout carries no reward");
        }
        if (!masked && maskKind != null) {
            throw new IllegalArgumentException("maskKind " + maskKind.wire() + " on a rollout that is not masked");
        }
        if (!masked && (reward == null || rExec == null)) {
            throw new IllegalArgumentException("an unmasked rollout needs rExec and reward");
        }
    }

    /** Whether the rollout was masked for an infrastructure failure, to be retried and never trained on. */
    public boolean maskedForInfra() {
        return masked && maskKind.infra();
    }

    /** The group's size, from the header. */
    public int groupSize() {
        return ref.groupSize();
    }

    /** One rubric criterion's weight and score in [0, 1]. */
    public record Criterion(String id, double weight, double score, String detail) {}
}
