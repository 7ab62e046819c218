package ai.openalice.rl.agent.external;

import ai.openalice.rl.agent.loop.Episode;
import ai.openalice.rl.agent.loop.LoopConfig;
import ai.openalice.rl.harness.PythonEnvironments;
import ai.openalice.rl.policy.Policy;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What the tests of real agent programs share: the endpoint, real bubblewrap sandboxes, the chat
 * laid out by Qwen3's template over {@link RecordingChatTest}'s tokenizer, and a program's Python
 * environment built from PyPI (cached between runs).
 */
final class ProgramFixture implements AutoCloseable {
    /** The project's scripts for agent programs (examples/agent-programs), as a runner's {@code runner.agent-program.files}. */
    static final Path PROGRAMS = Path.of("..", "..", "examples", "agent-programs").toAbsolutePath().normalize();

    final LocalSandboxProvider provider;
    final AgentEndpoint endpoint;
    final ProgramEpisode.Setup setup;

    private ProgramFixture(LocalSandboxProvider provider, AgentEndpoint endpoint, ProgramEpisode.Setup setup) {
        this.provider = provider;
        this.endpoint = endpoint;
        this.setup = setup;
    }

    /** {@code model}: a folder for the test tokenizer; {@code name}: the sandboxes' root's name. */
    static ProgramFixture start(Path model, String name) throws Exception {
        RecordingChatTest.setUp(model);
        var provider = new LocalSandboxProvider(LocalSandboxConfig.defaults()
                .withRoot(Path.of("/tmp", "alice-rl-test-" + name + "-" + UUID.randomUUID().toString().substring(0, 8))));
        var endpoint = AgentEndpoint.start();
        return new ProgramFixture(provider, endpoint, new ProgramEpisode.Setup(endpoint, Files.createTempDirectory("alice-rl-programs-"),
                RecordingChatTest.qwen3, RecordingChatTest.tok, Map.of(), "policy"));
    }

    /** An environment of Python {@code version} holding {@code packages}, as the runner builds a program's. */
    static Path environment(String version, List<String> packages) throws Exception {
        var spec = new ObjectMapper().createObjectNode().put("version", version);
        var pip = spec.putArray("pip_packages");
        packages.forEach(pip::add);
        return new PythonEnvironments(PythonEnvironments.defaultCache(), PythonEnvironments.defaultRoots())
                .ensure(spec, new WorkspaceSource.Dir(Files.createTempDirectory("alice-rl-empty")), null).home();
    }

    /** An episode of {@code program} on {@code problem} in a sandbox of {@code workspace}, its calls answered by {@code policy}. */
    Episode play(ProgramEpisode.Program program, String problem, Policy policy, LoopConfig budget, Path workspace) {
        try (var episode = ProgramEpisode.open(setup, program, problem, policy, budget);
                Sandbox s = provider.create(episode.spec(SandboxSpec.of(new WorkspaceSource.Dir(workspace))))) {
            return episode.run(s);
        }
    }

    /** The token ids' text. */
    static String text(List<Integer> ids) {
        return RecordingChatTest.tok.decode(ids.stream().mapToInt(Integer::intValue).toArray());
    }

    @Override
    public void close() {
        endpoint.close();
        provider.close();
    }
}
