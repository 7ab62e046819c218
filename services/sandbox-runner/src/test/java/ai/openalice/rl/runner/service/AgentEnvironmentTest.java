package ai.openalice.rl.runner.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.AgentTask;
import ai.openalice.rl.events.task.Limits;
import ai.openalice.rl.events.task.WorkspaceSpec;
import ai.openalice.rl.harness.PythonEnvironments;
import ai.openalice.rl.sandbox.HostCommand;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The agent's sandbox gets the task's Python environment, built from the host's Python and PyPI
 * in the cache the verifier uses: {@code python} there is the environment's and imports what the
 * spec pinned. A Python or a JDK the host lacks leaves the agent without it (counted), not the
 * episode without a sandbox.
 */
class AgentEnvironmentTest {
    static Path root;
    static LocalSandboxProvider provider;
    static SimpleMeterRegistry metrics = new SimpleMeterRegistry();
    static AgentEnvironment environment;

    @BeforeAll
    static void setUp() throws Exception {
        root = Files.createTempDirectory(Path.of("/tmp"), "alice-rl-agent-env");
        Files.createDirectories(root.resolve("workspace"));
        Files.writeString(root.resolve("workspace/README"), "a project\n");
        HostCommand.check(List.of("chmod", "-R", "a+rX", root.toString()), null, Duration.ofSeconds(10));
        provider = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(root.resolve("sandboxes")));
        environment = new AgentEnvironment(null, null, null, new PythonEnvironments(root.resolve("envs"), PythonEnvironments.defaultRoots()), metrics);
    }

    @AfterAll
    static void tearDown() throws Exception {
        provider.close();
        HostCommand.run(List.of("rm", "-rf", root.toString()), null, Duration.ofMinutes(2));
    }

    static AgentTask task(ObjectNode toolchain) {
        return new AgentTask("fixture__py-1", 1, null, "nothing", new WorkspaceSpec.Dir(root.resolve("workspace").toString()), new Limits(5, null, 60, 60),
                "1.0", toolchain);
    }

    static String run(AgentTask task, String command) throws Exception {
        var source = new WorkspaceSource.Dir(root.resolve("workspace"));
        try (var s = provider.create(environment.of(task, source, "test").applyTo(SandboxSpec.of(source)))) {
            var r = s.exec(command, Duration.ofMinutes(1));
            assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
            return r.stdout().strip();
        }
    }

    static double unavailable(String toolchain) {
        return metrics.counter("runner_toolchain_unavailable_total", "toolchain", toolchain).count();
    }

    @Test
    void theAgentRunsTheTasksPythonEnvironment() throws Exception {
        var toolchain = JsonNodeFactory.instance.objectNode();
        toolchain.putObject("python").put("version", "3.11").putArray("pip_packages").add("iniconfig==2.0.0");
        String out = run(task(toolchain), "command -v python; python -c 'import sys, iniconfig, importlib.metadata as m;"
                + " print(\"%d.%d\" % sys.version_info[:2], m.version(\"iniconfig\"))'");
        var lines = out.lines().toList();
        assertTrue(lines.get(0).startsWith(root.resolve("envs").toString()) && lines.get(0).endsWith("/bin/python"), out);
        assertEquals("3.11 2.0.0", lines.get(1));
        assertEquals(0, unavailable("python"));
    }

    @Test
    void aPythonTheHostLacksLeavesTheAgentWithoutItAndIsCounted() throws Exception {
        var toolchain = JsonNodeFactory.instance.objectNode();
        toolchain.putObject("python").put("version", "3.99");
        toolchain.put("java", "99");
        double python = unavailable("python");
        double java = unavailable("java");
        String out = run(task(toolchain), "command -v python3 || echo none");
        assertTrue(!out.startsWith(root.toString()), "not an environment of the cache: " + out);
        assertEquals(python + 1, unavailable("python"));
        assertEquals(java + 1, unavailable("java"));
    }
}
