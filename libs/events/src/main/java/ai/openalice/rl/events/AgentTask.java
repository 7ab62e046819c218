package ai.openalice.rl.events;

import ai.openalice.rl.events.task.Limits;
import ai.openalice.rl.events.task.WorkspaceSpec;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What a sandbox-runner needs to run an episode. By construction it holds no privileged field of
 * the task: no gold patch, no hidden tests, no test names. {@code contentHash} (sha256 of the task's
 * canonical JSON, as the dispatcher accepted it; null from producers that predate it) names the exact
 * content the episode ran, so the verifier can refuse to judge it against any other. {@code version}
 * (the task's release series, e.g. SWE-bench's 2.0) and {@code toolchain} (the task's, e.g.
 * {@code {"python": {...}}}) let the runner give the agent's sandbox what the verifier will give the
 * tests: null from producers that predate them, or when the task names none.
 */
public record AgentTask(String taskId, int taskVersion, @Added("tasks.accepted") String contentHash, String problemStatement, WorkspaceSpec workspace,
        Limits limits, @Added("agent toolchain") String version, @Added("agent toolchain") JsonNode toolchain) {

    /** A task that names no toolchain. */
    public AgentTask(String taskId, int taskVersion, String contentHash, String problemStatement, WorkspaceSpec workspace, Limits limits) {
        this(taskId, taskVersion, contentHash, problemStatement, workspace, limits, null, null);
    }

    /** The same task under {@code other} limits. */
    public AgentTask withLimits(Limits other) {
        return new AgentTask(taskId, taskVersion, contentHash, problemStatement, workspace, other, version, toolchain);
    }

    /** The Python environment the task's tests need ({@code toolchain.python}), when it names one. */
    public Optional<JsonNode> pythonToolchain() {
        var v = toolchain == null ? null : toolchain.get("python");
        return v != null && v.isObject() ? Optional.of(v) : Optional.empty();
    }

    /**
     * The Java major version the task's tests need ({@code toolchain.java}), when it names one as a
     * major version (the dispatcher's parser allows nothing else; another producer's odd value names none).
     */
    public OptionalInt javaVersion() {
        var v = toolchain == null ? null : toolchain.get("java");
        return v == null || !v.asText().matches("[1-9][0-9]?") ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(v.asText()));
    }
}
