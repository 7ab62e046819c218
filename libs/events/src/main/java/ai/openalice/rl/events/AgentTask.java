package ai.openalice.rl.events;

import ai.openalice.rl.events.task.Limits;
import ai.openalice.rl.events.task.WorkspaceSpec;

/**
 * What a sandbox-runner needs to run an episode. By construction it holds no privileged field of
 * the task: no gold patch, no hidden tests, no test names. {@code contentHash} (sha256 of the task's
 * canonical JSON, as the dispatcher accepted it; null from producers that predate it) names the exact
 * content the episode ran, so the verifier can refuse to judge it against any other.
 */
public record AgentTask(String taskId, int taskVersion, @Added("tasks.accepted") String contentHash, String problemStatement, WorkspaceSpec workspace, Limits limits) {

    /** The same task under {@code other} limits. */
    public AgentTask withLimits(Limits other) {
        return new AgentTask(taskId, taskVersion, contentHash, problemStatement, workspace, other);
    }
}
