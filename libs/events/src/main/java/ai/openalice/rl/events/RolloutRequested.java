package ai.openalice.rl.events;

import java.time.Instant;
import java.util.Objects;

/**
 * One rollout of a GRPO group, to be run by a sandbox-runner before {@code deadline}. The task's
 * identity in {@code task} (id, version, content hash) is the header's: a request that says two
 * things is refused.
 */
public record RolloutRequested(RolloutRef ref, AgentTask task, Instant deadline) implements RolloutEvent {

    public RolloutRequested {
        Objects.requireNonNull(ref, "ref");
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(deadline, "deadline");
        if (!task.taskId().equals(ref.taskId()) || task.taskVersion() != ref.taskVersion() || !Objects.equals(task.contentHash(), ref.contentHash())) {
            throw new IllegalArgumentException("task " + task.taskId() + " v" + task.taskVersion() + " (" + task.contentHash() + ") is not the header's "
                    + ref.taskId() + " v" + ref.taskVersion() + " (" + ref.contentHash() + ")");
        }
    }

    /** The header's mode (kept for readers of the request). */
    public RolloutRef.Mode mode() {
        return ref.mode();
    }

    public RolloutRef.Sampling sampling() {
        return ref.sampling();
    }

    public int attempt() {
        return ref.attempt();
    }

    public int groupSize() {
        return ref.groupSize();
    }

    public int memberIndex() {
        return ref.memberIndex();
    }
}
