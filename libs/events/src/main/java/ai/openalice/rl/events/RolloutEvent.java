package ai.openalice.rl.events;

import java.util.UUID;

/** An event about one rollout of a GRPO group: its {@link RolloutRef} header and what happened; keyed by {@code groupId}. */
public sealed interface RolloutEvent extends EventPayload
        permits RolloutRequested, RolloutCompleted, VerificationCompleted, RewardScored {

    /** The header, as the dispatcher requested the rollout. */
    RolloutRef ref();

    default String taskId() {
        return ref().taskId();
    }

    default UUID groupId() {
        return ref().groupId();
    }

    default UUID rolloutId() {
        return ref().rolloutId();
    }

    default long policyVersion() {
        return ref().policyVersion();
    }

    @Override
    default String key() {
        return groupId().toString();
    }

    /** The log context every line about this rollout carries: {@code taskId/groupId/rolloutId policy=vN}. */
    default String logContext() {
        return ref().logContext();
    }
}
