package ai.openalice.rl.events;

import ai.openalice.rl.events.task.Limits;
import ai.openalice.rl.events.task.WorkspaceSpec;

/**
 * What a sandbox-runner needs to run an episode. By construction it holds no privileged field of
 * the task: no gold patch, no hidden tests, no test names.
 */
public record AgentTask(String taskId, int taskVersion, String problemStatement, WorkspaceSpec workspace, Limits limits) {}
