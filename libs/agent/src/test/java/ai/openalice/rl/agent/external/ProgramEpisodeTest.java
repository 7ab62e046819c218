package ai.openalice.rl.agent.external;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.agent.loop.Episode;
import ai.openalice.rl.agent.loop.LoopConfig;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.policy.Policy;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
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
 * Whole episodes of an agent program in a real bubblewrap sandbox: a small OpenAI client written
 * here (Python's standard library only) asks the policy, runs what it answers, sends the output
 * back, edits the workspace and exits — the episode is its calls and the workspace's diff.
 */
class ProgramEpisodeTest {
    static LocalSandboxProvider provider;
    static AgentEndpoint endpoint;
    static ProgramEpisode.Setup setup;

    /** Asks, runs the answer as a command, sends its output back, asks again, writes the second answer to notes.txt. */
    static final String PROGRAM = """
            python3 - <<'EOF'
            import json, os, subprocess, sys, urllib.error, urllib.request
            def ask(messages):
                req = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions",
                    data=json.dumps({"model": os.environ["ALICE_RL_MODEL"], "messages": messages}).encode(),
                    headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"})
                try:
                    return json.load(urllib.request.urlopen(req, timeout=30))["choices"][0]["message"]["content"]
                except urllib.error.HTTPError as e:
                    print(e.read().decode(), file=sys.stderr)
                    sys.exit(2)
            messages = [{"role": "system", "content": "S"}, {"role": "user", "content": open(os.environ["ALICE_RL_PROBLEM"]).read()}]
            command = ask(messages)
            out = subprocess.run(command, shell=True, capture_output=True, text=True).stdout
            messages += [{"role": "assistant", "content": command}, {"role": "user", "content": out}]
            open("notes.txt", "w").write(ask(messages) + "\\n")
            EOF""";

    @BeforeAll
    static void setUp(@TempDir Path model) throws Exception {
        RecordingChatTest.setUp(model);
        provider = new LocalSandboxProvider(LocalSandboxConfig.defaults()
                .withRoot(Path.of("/tmp", "alice-rl-test-program-" + UUID.randomUUID().toString().substring(0, 8))));
        endpoint = AgentEndpoint.start();
        setup = new ProgramEpisode.Setup(endpoint, Files.createTempDirectory("alice-rl-programs-"), RecordingChatTest.qwen3, RecordingChatTest.tok,
                Map.of(), "policy");
    }

    @AfterAll
    static void tearDown() {
        endpoint.close();
        provider.close();
    }

    static Episode play(Path workspace, String command, Policy policy, LoopConfig budget) {
        try (var e = ProgramEpisode.open(setup, new ProgramEpisode.Program(command, null), "list the files", policy, budget);
                Sandbox s = provider.create(e.spec(SandboxSpec.of(new WorkspaceSource.Dir(workspace))))) {
            return e.run(s);
        }
    }

    static Path workspace(Path dir) throws Exception {
        Files.writeString(dir.resolve("a.py"), "print(1)\n");
        return dir;
    }

    @Test
    void theProgramsCallsAreTheTurnsAndItsEditsThePatch(@TempDir Path dir) throws Exception {
        var policy = new RecordingChatTest.Scripted("ls", "done");
        Episode e = play(workspace(dir), PROGRAM, policy, LoopConfig.defaults(10, 4096).withTimeout(Duration.ofSeconds(60)));
        assertEquals(Termination.SUBMITTED, e.termination(), String.valueOf(e.error()));
        assertTrue(e.patch().contains("+++ b/notes.txt") && e.patch().contains("+done"), e.patch());
        List<Turn> turns = e.trajectory().turns();
        assertEquals(2, turns.size());
        assertTrue(turns.stream().noneMatch(Turn::newContext), "the program sent its history back unchanged");
        // the second call added the end of the answer's turn, ls's output as the user's message, and the assistant header
        String added = RecordingChatTest.tok.decode(turns.get(1).promptDeltaTokenIds().stream().mapToInt(Integer::intValue).toArray());
        assertEquals("\n<|im_start|>user\na.py\n<|im_end|>\n<|im_start|>assistant\n", added);
        String problem = RecordingChatTest.tok.decode(turns.get(0).promptDeltaTokenIds().stream().mapToInt(Integer::intValue).toArray());
        assertTrue(problem.contains("<|im_start|>user\nlist the files<|im_end|>"), problem);
        assertEquals(2, e.stats().turns());
        assertEquals(turns.get(0).completionTokenIds().size() + turns.get(1).completionTokenIds().size(), e.stats().completionTokens());
    }

    @Test
    void aProgramStoppedByTheBudgetEndsAsMaxStepsWithWhatItDid(@TempDir Path dir) throws Exception {
        Episode e = play(workspace(dir), PROGRAM, new RecordingChatTest.Scripted("ls", "done"),
                LoopConfig.defaults(1, 4096).withTimeout(Duration.ofSeconds(60)));
        assertEquals(Termination.MAX_STEPS, e.termination());
        assertEquals(1, e.trajectory().turns().size());
    }

    @Test
    void aProgramWhoseFirstPromptIsOverTheContextEndsAsMaxContextNotAsAFailure(@TempDir Path dir) throws Exception {
        // the program gives up on the 400 (it exits 2), with no call recorded
        Episode e = play(workspace(dir), PROGRAM, new RecordingChatTest.Scripted("ls", "done"),
                LoopConfig.defaults(10, 16).withTimeout(Duration.ofSeconds(60)));
        assertEquals(Termination.MAX_CONTEXT, e.termination(), String.valueOf(e.error()));
        assertEquals(0, e.trajectory().turns().size());
    }

    @Test
    void aProgramThatFailsBeforeAnyCallIsAnInfrastructureFailureWithItsOwnWords(@TempDir Path dir) throws Exception {
        Episode e = play(workspace(dir), "echo 'no module named minisweagent' >&2; exit 1", new RecordingChatTest.Scripted(),
                LoopConfig.defaults(10, 4096).withTimeout(Duration.ofSeconds(60)));
        assertEquals(Termination.INFRA_ERROR, e.termination());
        assertEquals("agent_program", e.error().kind());
        assertTrue(e.error().message().contains("exited 1") && e.error().message().contains("no module named minisweagent"), e.error().message());
    }
}
