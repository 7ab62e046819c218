package ai.openalice.rl.events.task;

import ai.openalice.rl.events.AgentTask;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A validated task: a SWE-bench instance plus alice-rl's fields. {@code raw} is the task exactly
 * as submitted, unknown fields included. {@code patch} (gold), {@code testPatch} and the test
 * lists are privileged: {@link #agentView} leaves them out.
 */
public record Task(
        String instanceId,
        String repo,
        String baseCommit,
        String problemStatement,
        String patch,
        String testPatch,
        List<String> failToPass,
        List<String> passToPass,
        String version,
        String environmentSetupCommit,
        String hintsText,
        String createdAt,
        WorkspaceSpec workspace,
        String testCommand,
        TestReportSpec testReport,
        Limits limits,
        Split split,
        ObjectNode raw) {

    public Task {
        failToPass = List.copyOf(failToPass);
        passToPass = List.copyOf(passToPass);
        raw = raw.deepCopy();
    }

    /** The Java major version the task's tests need ({@code toolchain.java}), when it names one. */
    public OptionalInt javaVersion() {
        var v = raw.path("toolchain").path("java");
        return v.isMissingNode() || v.isNull() ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(v.asText()));
    }

    /** The rule the listed tests' outcomes are judged by ({@code grading}; SWE-bench's when the task names none). */
    public Grading grading() {
        var g = raw.path("grading");
        return g.isTextual() ? Grading.of(g.asText()) : Grading.SWE_BENCH;
    }

    /**
     * The Python environment the task's tests need ({@code toolchain.python}, in SWE-bench's words:
     * {@code version}, {@code packages}, {@code pip_packages}, {@code install}), when it names one.
     */
    /** The IPv4 networks that swallow connections in the task's test runs ({@code toolchain.unroutable}); empty for none. */
    public List<String> unroutable() {
        return toolchainList("unroutable");
    }

    /** The stand-ins its test runs get on the sandbox's loopback ({@code toolchain.stand_ins}, e.g. httpbin); empty for none. */
    public List<String> standIns() {
        return toolchainList("stand_ins");
    }

    private List<String> toolchainList(String field) {
        var out = new ArrayList<String>();
        raw.path("toolchain").path(field).forEach(n -> out.add(n.asText()));
        return out;
    }

    public Optional<JsonNode> pythonToolchain() {
        var v = raw.path("toolchain").path("python");
        return v.isObject() ? Optional.of(v.deepCopy()) : Optional.empty();
    }

    /** What the agent may see of this task (revision {@code taskVersion}), outside the loop (no content hash). */
    public AgentTask agentView(int taskVersion) {
        return agentView(taskVersion, null);
    }

    /** What the agent may see of this task: revision {@code taskVersion}, whose content has the sha256 {@code contentHash}. */
    public AgentTask agentView(int taskVersion, String contentHash) {
        var toolchain = raw.get("toolchain");
        return new AgentTask(instanceId, taskVersion, contentHash, problemStatement, workspace, limits, version,
                toolchain != null && toolchain.isObject() ? toolchain.deepCopy() : null);
    }
}
