package ai.openalice.rl.events;

import java.util.UUID;

/** An event about one rollout of a GRPO group; keyed by {@code groupId}. */
public sealed interface RolloutEvent extends EventPayload
        permits RolloutRequested, RolloutCompleted, VerificationCompleted, RewardScored {

    String taskId();

    UUID groupId();

    UUID rolloutId();

    long policyVersion();

    @Override
    default String key() {
        return groupId().toString();
    }

    /** The log context every line about this rollout carries: {@code taskId/groupId/rolloutId policy=vN}. */
    default String logContext() {
        return taskId() + "/" + groupId() + "/" + rolloutId() + " policy=v" + policyVersion();
    }
}
