package ai.openalice.rl.events;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Objects;
import java.util.UUID;

/**
 * The rollout header: everything about one attempt of one group member that the dispatcher decided
 * when it requested it — which task content, which group, which policy version, train or eval, and
 * how to sample. Every rollout event carries it unchanged from {@code rollouts.requested} to
 * {@code rewards.scored}, so no consumer re-joins or re-derives any of it.
 */
public record RolloutRef(
        String taskId,
        int taskVersion,
        String contentHash,
        UUID groupId,
        UUID rolloutId,
        int memberIndex,
        int attempt,
        int groupSize,
        long policyVersion,
        Mode mode,
        UUID evalRunId,
        Sampling sampling) {

    public RolloutRef {
        Objects.requireNonNull(taskId, "taskId");
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(rolloutId, "rolloutId");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(sampling, "sampling");
        if (taskVersion < 1 || attempt < 1 || groupSize < 1 || memberIndex < 0 || memberIndex >= groupSize || policyVersion < 0) {
            throw new IllegalArgumentException("rollout header out of range: taskVersion " + taskVersion + ", attempt " + attempt + ", member "
                    + memberIndex + " of " + groupSize + ", policy v" + policyVersion);
        }
        if ((mode == Mode.EVAL) != (evalRunId != null)) {
            throw new IllegalArgumentException("evalRunId " + evalRunId + " with mode " + mode.wire() + ": an evaluation rollout, and only one, names its run");
        }
    }

    /** The log context every line about this rollout carries: {@code taskId/groupId/rolloutId policy=vN}. */
    public String logContext() {
        return taskId + "/" + groupId + "/" + rolloutId + " policy=v" + policyVersion;
    }

    /** Training rollouts feed the trainer; evaluation rollouts only the eval report. */
    public enum Mode implements WireEnum {
        TRAIN("train"),
        EVAL("eval");

        private final String wire;

        Mode(String wire) { this.wire = wire; }

        @JsonValue
        @Override
        public String wire() { return wire; }

        @JsonCreator
        public static Mode of(String value) { return WireEnum.parse(Mode.class, value); }
    }

    /**
     * Sampling parameters for every turn of the episode. The trainer computes log-probs at
     * {@code temperature} too, so a sample records the temperature it was drawn at.
     */
    public record Sampling(double temperature, double topP, int maxTokensPerTurn, Long seed) {
        public Sampling {
            if (!(temperature >= 0) || !(topP > 0 && topP <= 1) || maxTokensPerTurn < 1) {
                throw new IllegalArgumentException("sampling out of range: temperature " + temperature + ", topP " + topP + ", maxTokensPerTurn "
                        + maxTokensPerTurn);
            }
        }
    }
}
