package ai.openalice.rl.agent.external;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.agent.loop.Episode;
import ai.openalice.rl.agent.loop.LoopConfig;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.harness.PythonEnvironments;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OpenHands' software agent SDK as it ships on PyPI, headless in a real bubblewrap sandbox against
 * the endpoint (examples/agent-programs/openhands_sdk.py: its terminal and file editor tools, no
 * condenser). The policy is scripted (Hermes tool calls): a terminal command that edits the
 * workspace, then OpenHands' finish tool. (The test's tokenizer is a token a byte: OpenHands' first
 * prompt, its system prompt and four tools, is about 26,000.)
 */
class OpenHandsTest {
    /** The release checked here: the SDK and its tools, pinned together (the tools do not pin the SDK). */
    static final List<String> OPENHANDS = List.of("openhands-sdk==1.58.2", "openhands-tools==1.58.2");
    static final String COMMAND = "\"$ALICE_RL_AGENT_ENV/bin/python\" \"$ALICE_RL_AGENT_FILES/openhands_sdk.py\"";
    static LocalSandboxProvider provider;
    static AgentEndpoint endpoint;
    static ProgramEpisode.Setup setup;
    static ProgramEpisode.Program program;

    @BeforeAll
    static void setUp(@TempDir Path model) throws Exception {
        RecordingChatTest.setUp(model);
        var spec = new ObjectMapper().createObjectNode().put("version", "3.12");
        var pip = spec.putArray("pip_packages");
        OPENHANDS.forEach(pip::add);
        Path empty = Files.createTempDirectory("alice-rl-empty");
        Path environment = new PythonEnvironments(PythonEnvironments.defaultCache(), PythonEnvironments.defaultRoots())
                .ensure(spec, new WorkspaceSource.Dir(empty), null).home();
        program = new ProgramEpisode.Program(COMMAND, environment, Path.of("..", "..", "examples", "agent-programs").toAbsolutePath().normalize());
        provider = new LocalSandboxProvider(LocalSandboxConfig.defaults()
                .withRoot(Path.of("/tmp", "alice-rl-test-openhands-" + UUID.randomUUID().toString().substring(0, 8))));
        endpoint = AgentEndpoint.start();
        setup = new ProgramEpisode.Setup(endpoint, Files.createTempDirectory("alice-rl-programs-"), RecordingChatTest.qwen3, RecordingChatTest.tok,
                Map.of(), "policy");
    }

    @AfterAll
    static void tearDown() {
        if (endpoint != null) {
            endpoint.close();
        }
        if (provider != null) {
            provider.close();
        }
    }

    @Test
    void openHandsAsItShipsPlaysAnEpisodeThroughTheEndpoint(@TempDir Path workspace) throws Exception {
        Files.writeString(workspace.resolve("a.py"), "print(1)\n");
        var policy = new RecordingChatTest.Scripted(
                "I will write the note.\n<tool_call>\n{\"name\": \"terminal\", \"arguments\": {\"command\": \"echo fixed > notes.txt\", \"security_risk\": \"LOW\"}}\n</tool_call>",
                "<tool_call>\n{\"name\": \"finish\", \"arguments\": {\"message\": \"Wrote notes.txt.\"}}\n</tool_call>");
        Episode e;
        try (var episode = ProgramEpisode.open(setup, program, "write a note", policy, LoopConfig.defaults(10, 65536).withTimeout(Duration.ofMinutes(3)));
                Sandbox s = provider.create(episode.spec(SandboxSpec.of(new WorkspaceSource.Dir(workspace))))) {
            e = episode.run(s);
        }
        assertEquals(Termination.SUBMITTED, e.termination(), String.valueOf(e.error()));
        assertTrue(e.patch().contains("+++ b/notes.txt") && e.patch().contains("+fixed"), e.patch());
        List<Turn> turns = e.trajectory().turns();
        assertEquals(2, turns.size());
        assertFalse(turns.get(1).newContext(), "OpenHands sends its history back as it got it (no condenser): one context");
        assertEquals("terminal", turns.get(0).action().tool());
        assertEquals("echo fixed > notes.txt", turns.get(0).action().args().get("command").asText(), "the command it was asked to run");
        String opening = RecordingChatTest.tok.decode(turns.get(0).promptDeltaTokenIds().stream().mapToInt(Integer::intValue).toArray());
        assertTrue(opening.contains("write a note") && opening.contains("\"name\": \"terminal\"") && opening.contains("\"name\": \"finish\""),
                "the task and OpenHands' tools, rendered by the template: " + opening.substring(Math.max(0, opening.length() - 2000)));
        String added = RecordingChatTest.tok.decode(turns.get(1).promptDeltaTokenIds().stream().mapToInt(Integer::intValue).toArray());
        assertTrue(added.startsWith("\n<|im_start|>user\n<tool_response>\n") && added.contains(turns.get(0).observation()), added);
    }

    @Test
    void openHandsStopsWhenTheEpisodesCallsAreSpent(@TempDir Path workspace) throws Exception {
        Files.writeString(workspace.resolve("a.py"), "print(1)\n");
        var policy = new RecordingChatTest.Scripted(
                "<tool_call>\n{\"name\": \"terminal\", \"arguments\": {\"command\": \"echo 2 > a.py\", \"security_risk\": \"LOW\"}}\n</tool_call>");
        Episode e;
        try (var episode = ProgramEpisode.open(setup, program, "change a.py", policy, LoopConfig.defaults(1, 65536).withTimeout(Duration.ofSeconds(90)));
                Sandbox s = provider.create(episode.spec(SandboxSpec.of(new WorkspaceSource.Dir(workspace))))) {
            e = episode.run(s);
        }
        assertEquals(Termination.MAX_STEPS, e.termination(), "stopped by the budget's answer, not retried to the time limit: " + e.error());
        assertTrue(e.patch().contains("+2"), e.patch());
    }
}
