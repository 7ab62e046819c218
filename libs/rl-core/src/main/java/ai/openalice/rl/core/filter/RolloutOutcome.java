package ai.openalice.rl.core.filter;

import java.util.Objects;

/** What the filters need to know about one rollout: its group, how it ended, its reward, whether it solved the task. */
public record RolloutOutcome(String rolloutId, String groupId, EndReason end, double reward, boolean solved) {
    public RolloutOutcome {
        Objects.requireNonNull(rolloutId, "rolloutId");
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(end, "end");
    }
}
