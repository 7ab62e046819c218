package ai.openalice.rl.runner.service;

import ai.openalice.rl.events.AgentTask;
import ai.openalice.rl.harness.PythonEnvironments;
import ai.openalice.rl.harness.TestEnvironment;
import ai.openalice.rl.harness.Toolchains;
import ai.openalice.rl.harness.VerifierOptions;
import ai.openalice.rl.sandbox.WorkspaceSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import org.jboss.logging.Logger;

/**
 * What the agent's local sandbox gets from the host so that the agent can run the task's tests as
 * the verifier will: the Maven repository and installation, the JDK the task's {@code toolchain.java}
 * asks for (or the nearest newer, as the verifier picks it) and the Python environment of its
 * {@code toolchain.python}, built in the same cache as the verifier's (one build serves both). What
 * cannot be had is logged and counted, and the episode runs without it: the agent loses a tool it
 * would have liked, but the verdict, which the verifier gives with its own environment, is not at stake.
 */
final class AgentEnvironment {
    private static final Logger LOG = Logger.getLogger(AgentEnvironment.class);

    private final Path mavenRepository;
    private final Path mavenHome;
    private final Path jvmRoot;
    private final PythonEnvironments python;
    private final MeterRegistry metrics;

    /** {@code python}: where environments are built and cached; null: tasks' Python environments are not given to the agent (a pod's image holds its own). */
    AgentEnvironment(Path mavenRepository, Path mavenHome, Path jvmRoot, PythonEnvironments python, MeterRegistry metrics) {
        this.mavenRepository = mavenRepository;
        this.mavenHome = mavenHome;
        this.jvmRoot = jvmRoot == null ? VerifierOptions.HOST_JVMS : jvmRoot;
        this.python = python;
        this.metrics = metrics;
        metrics.counter("runner_toolchain_unavailable_total", "toolchain", "java");
        metrics.counter("runner_toolchain_unavailable_total", "toolchain", "python");
    }

    /** The environment for {@code task}'s episode, whose workspace comes from {@code source}; {@code log}: the episode's log prefix. */
    TestEnvironment of(AgentTask task, WorkspaceSource source, String log) {
        Toolchains.Choice jdk = null;
        if (task.javaVersion().isPresent()) {
            jdk = Toolchains.scan(jvmRoot).java(task.javaVersion().getAsInt()).orElse(null);
            if (jdk == null) {
                unavailable("java", log, "the task asks for java " + task.javaVersion().getAsInt() + " and " + jvmRoot + " has none that new");
            }
        }
        var env = TestEnvironment.of(mavenRepository, mavenHome, null, jdk);
        if (python == null || task.pythonToolchain().isEmpty() || source instanceof WorkspaceSource.Image) { // an image holds its own
            return env;
        }
        try {
            return env.withPython(python.ensure(task.pythonToolchain().get(), source, task.version()));
        } catch (PythonEnvironments.Unavailable e) {
            unavailable("python", log, e.getMessage());
            return env;
        }
    }

    private void unavailable(String toolchain, String log, String reason) {
        metrics.counter("runner_toolchain_unavailable_total", "toolchain", toolchain).increment();
        LOG.warnf("%s: %s; the agent runs without it (the verifier judges with its own)", log, reason);
    }
}
