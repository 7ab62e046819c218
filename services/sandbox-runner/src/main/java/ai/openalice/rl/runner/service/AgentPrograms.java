package ai.openalice.rl.runner.service;

import ai.openalice.rl.agent.external.AgentEndpoint;
import ai.openalice.rl.agent.external.ProgramEpisode;
import ai.openalice.rl.harness.PythonEnvironments;
import ai.openalice.rl.runner.config.RunnerConfig;
import ai.openalice.rl.sandbox.WorkspaceSource;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * {@code runner.agent-program}: the endpoint its calls go to (one per runner, on loopback), the
 * folders episodes are given, and the program's own Python environment, built once from its
 * {@code pip-packages} on the first episode that needs it.
 */
final class AgentPrograms implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RunnerConfig.AgentProgram config;
    private final ProgramEpisode.Setup setup;
    private final PythonEnvironments environments;
    private ProgramEpisode.Program program;

    private AgentPrograms(RunnerConfig.AgentProgram config, ProgramEpisode.Setup setup, PythonEnvironments environments) {
        this.config = config;
        this.setup = setup;
        this.environments = environments;
    }

    /**
     * The agent program's settings made ready; empty without {@code runner.agent-program.command}.
     * One that cannot run here stops the start with the reason.
     */
    static Optional<AgentPrograms> of(RunnerConfig config, ModelLayout model, PythonEnvironments environments) {
        var c = config.agentProgram();
        if (c.command().isEmpty()) {
            return Optional.empty();
        }
        if (config.sandboxBackend() != RunnerConfig.SandboxBackend.LOCAL) {
            throw new IllegalStateException("runner.agent-program: agent programs run in local sandboxes only so far (runner.sandbox-backend=local);"
                    + " a pod would reach the endpoint over the cluster's network, which is not built yet");
        }
        if (model.template().isEmpty()) {
            throw new IllegalStateException("runner.agent-program needs runner.model-dir: the model's chat template lays out the program's calls"
                    + " (the built-in model's compact layout has no chat template)");
        }
        if (c.pipPackages().isPresent() && environments == null) {
            throw new IllegalStateException("runner.agent-program.pip-packages: no Python environments on this back end");
        }
        try {
            var endpoint = AgentEndpoint.start();
            Path folders = Files.createTempDirectory("alice-rl-programs-"); // short: a Unix socket's path holds 107 bytes at most
            return Optional.of(new AgentPrograms(c, new ProgramEpisode.Setup(endpoint, folders, model.template().get(), model.tokenizer(),
                    model.extra(), c.modelName()), environments));
        } catch (IOException e) {
            throw new UncheckedIOException("runner.agent-program: the endpoint cannot start: " + e.getMessage(), e);
        }
    }

    ProgramEpisode.Setup setup() {
        return setup;
    }

    /** The program, its environment built on first use (from PyPI; a failure is the episode's infrastructure error, tried again later). */
    synchronized ProgramEpisode.Program program() throws PythonEnvironments.Unavailable {
        if (program == null) {
            Path env = null;
            if (config.pipPackages().isPresent()) {
                var spec = JSON.createObjectNode().put("version", config.python());
                var pip = spec.putArray("pip_packages");
                config.pipPackages().get().forEach(pip::add);
                try {
                    Path empty = Files.createTempDirectory("alice-rl-program-env");
                    env = environments.ensure(spec, new WorkspaceSource.Dir(empty), null).home();
                    Files.deleteIfExists(empty);
                } catch (IOException e) {
                    throw new PythonEnvironments.Unavailable("the agent program's environment: " + e.getMessage(), "");
                }
            }
            program = new ProgramEpisode.Program(config.command().orElseThrow(), env, config.files().map(Path::toAbsolutePath).orElse(null));
        }
        return program;
    }

    /** The packages, for logs. */
    List<String> packages() {
        return config.pipPackages().orElse(List.of());
    }

    @Override
    public void close() {
        setup.endpoint().close();
    }
}
