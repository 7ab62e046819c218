package ai.openalice.rl.agent.loop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.agent.format.CompactFormat;
import ai.openalice.rl.agent.format.JsonFunctionFormat;
import ai.openalice.rl.agent.format.ToolCallFormat;
import ai.openalice.rl.agent.scripted.OraclePolicy;
import ai.openalice.rl.agent.scripted.RandomPolicy;
import ai.openalice.rl.agent.tools.Tools;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.harness.Harness;
import ai.openalice.rl.harness.VerifierOptions;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.Policy;
import ai.openalice.rl.policy.PolicyException;
import ai.openalice.rl.sandbox.ExecResult;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxException;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class AgentLoopTest {
    static final ByteTokenizer TOK = new ByteTokenizer();
    static LocalSandboxProvider provider;
    static Task task;

    @BeforeAll
    static void setUp() {
        provider = new LocalSandboxProvider(LocalSandboxConfig.defaults()
                .withRoot(Path.of("/tmp", "alice-rl-test-loop-" + UUID.randomUUID().toString().substring(0, 8))));
        Path tasks = Path.of("..", "..", "examples", "tasks", "calc.jsonl").toAbsolutePath().normalize();
        task = ((TaskReader.Line.Valid) TaskReader.read(tasks).getFirst()).task();
    }

    @AfterAll
    static void tearDown() {
        provider.close();
    }

    private Sandbox sandbox() {
        return provider.create(SandboxSpec.of(WorkspaceSource.of(task.workspace(), null)));
    }

    private Episode run(Policy policy, ToolCallFormat format, LoopConfig cfg) {
        try (Sandbox s = sandbox()) {
            return new AgentLoop(policy, TOK, format, Tools.standard()).run(task.agentView(1), s, cfg);
        }
    }

    @Test
    void theOracleResolvesTheTaskInEitherFormat() {
        for (ToolCallFormat format : new ToolCallFormat[] {new CompactFormat(), new JsonFunctionFormat()}) {
            Episode e = run(new OraclePolicy(task.patch(), TOK, format), format, LoopConfig.defaults(10, 8192));
            assertEquals(Termination.SUBMITTED, e.termination(), format.name() + ": " + e.trajectory());
            assertEquals(2, e.trajectory().turns().size(), "one hunk, then submit");
            assertNull(e.trajectory().turns().getFirst().action().parseError());
            var verdict = new Harness(provider, VerifierOptions.defaults()).verify(task, e.patch());
            assertEquals(VerificationStatus.RESOLVED, verdict.status(), format.name() + ": " + e.patch());
        }
    }

    @Test
    void anOracleTrajectoryIsReplayedTurnByTurnAndResolvesTheTask() throws Exception {
        // tiny-swe style: look, run the tests, fix the line, run them again, submit (on the calc example's bug)
        var steps = (ArrayNode) new ObjectMapper().readTree("""
                [{"tool": "file_editor", "args": {"command": "view", "path": "calc/ops.py"}},
                 {"tool": "bash", "args": {"command": "python3 -m unittest"}},
                 {"tool": "file_editor", "args": {"command": "str_replace", "path": "calc/ops.py", "old_str": "    return a - b", "new_str": "    return a + b"}},
                 {"tool": "bash", "args": {"command": "python3 -m unittest"}},
                 {"tool": "submit", "args": {}}]""");
        var format = new CompactFormat();
        Episode e = run(OraclePolicy.replaying(steps, TOK, format), format, LoopConfig.defaults(10, 8192));
        assertEquals(Termination.SUBMITTED, e.termination());
        assertEquals(5, e.trajectory().turns().size());
        assertTrue(e.trajectory().turns().getFirst().observation().contains("return a - b"), "the view shows the bug");
        assertTrue(e.trajectory().turns().getFirst().completionTokenIds().size() > 0);
        assertEquals(VerificationStatus.RESOLVED, new Harness(provider, VerifierOptions.defaults()).verify(task, e.patch()).status(), e.patch());

        Episode unfixed = run(OraclePolicy.replaying(steps, TOK, format).withoutFix(), format, LoopConfig.defaults(10, 8192));
        assertEquals(Termination.SUBMITTED, unfixed.termination());
        assertEquals(4, unfixed.trajectory().turns().size(), "view, test, test, submit: the str_replace is left out");
        assertEquals("", unfixed.patch().strip());
        assertEquals(VerificationStatus.UNRESOLVED, new Harness(provider, VerifierOptions.defaults()).verify(task, unfixed.patch()).status());
    }

    @Test
    void theBriefPromptNamesTheToolsAndNothingElse() {
        var full = new AgentLoop(new RandomPolicy(1, TOK, 0), TOK, new CompactFormat(), Tools.standard());
        var brief = full.withPrompt(AgentLoop.Prompt.BRIEF);
        assertEquals("Fix the bug in the repository at /w, then submit. Tools: bash, search, file_editor, submit.\n", brief.systemPrompt("/w"));
        assertTrue(full.systemPrompt("/w").contains("file_editor(command, path, ...)"), full.systemPrompt("/w"));
        try (Sandbox s = sandbox()) {
            Episode e = brief.run(task.agentView(1), s, LoopConfig.defaults(1, 16384));
            String first = TOK.decode(e.trajectory().turns().getFirst().promptDeltaTokenIds().stream().mapToInt(Integer::intValue).toArray());
            assertEquals("<|system|>" + brief.systemPrompt(s.workdir()) + "<|user|>" + task.problemStatement() + "<|assistant|>", first);
        }
    }

    @Test
    void maxStepsCountsEveryTurnIncludingUnreadableOnes() {
        Episode e = run(new RandomPolicy(3, TOK, 0), new CompactFormat(), LoopConfig.defaults(6, 16384));
        assertEquals(Termination.MAX_STEPS, e.termination());
        assertEquals(6, e.trajectory().turns().size());
        assertEquals(6, e.stats().turns());
        var unreadable = e.trajectory().turns().stream().filter(t -> t.action().parseError() != null).findFirst();
        assertTrue(unreadable.isPresent(), "the random policy sometimes answers without a call");
        assertTrue(unreadable.get().observation().startsWith("Your answer could not be read as a tool call: no 'call: TOOL' line"));
    }

    @Test
    void deltasAndCompletionsRebuildWhatThePolicySaw() {
        var seen = new ArrayList<int[]>();
        Policy recording = new Policy() {
            final RandomPolicy inner = new RandomPolicy(5, TOK, 0);

            @Override
            public String name() {
                return "recording";
            }

            @Override
            public Completion complete(CompletionRequest r) {
                seen.add(r.prompt());
                return inner.complete(r);
            }
        };
        Episode e = run(recording, new CompactFormat(), LoopConfig.defaults(4, 16384));
        var rebuilt = new ArrayList<Integer>();
        for (int i = 0; i < e.trajectory().turns().size(); i++) {
            Turn t = e.trajectory().turns().get(i);
            rebuilt.addAll(t.promptDeltaTokenIds());
            assertArrayEquals(seen.get(i), rebuilt.stream().mapToInt(Integer::intValue).toArray(), "prompt of turn " + i);
            rebuilt.addAll(t.completionTokenIds());
        }
        assertTrue(TOK.decode(seen.getFirst()).contains(task.problemStatement()));
        assertTrue(!TOK.decode(seen.getFirst()).contains("test_add_positive"), "hidden test names never reach the agent");
    }

    @Test
    void contextTimeoutAndInfrastructureEndings() {
        Episode tight = run(new RandomPolicy(1, TOK, 0), new CompactFormat(), LoopConfig.defaults(10, 300));
        assertEquals(Termination.MAX_CONTEXT, tight.termination());
        assertEquals(0, tight.trajectory().turns().size());

        Policy sleeper = saying("sleeper", "call: bash\ncommand: sleep 2\n");
        Episode slow = run(sleeper, new CompactFormat(), LoopConfig.defaults(10, 16384).withTimeout(Duration.ofSeconds(1)));
        assertEquals(Termination.TIMEOUT, slow.termination());
        assertEquals(1, slow.trajectory().turns().size());

        Policy broken = new Policy() {
            public String name() {
                return "broken";
            }

            public Completion complete(CompletionRequest r) {
                throw new PolicyException("inference service unreachable");
            }
        };
        Episode infra = run(broken, new CompactFormat(), LoopConfig.defaults(10, 16384));
        assertEquals(Termination.INFRA_ERROR, infra.termination());
        assertEquals("policy", infra.error().kind());
        assertEquals("inference service unreachable", infra.error().message());
    }

    /** A policy that answers {@code text} every turn (log π 0 for each token). */
    private static Policy saying(String name, String text) {
        return new Policy() {
            public String name() {
                return name;
            }

            public Completion complete(CompletionRequest r) {
                int[] ids = TOK.encode(text);
                return new Completion(ids, new double[ids.length], text, Completion.FinishReason.STOP, 0);
            }
        };
    }

    /** A sandbox whose every command fails as the sandbox itself failing, for {@code reason}. */
    private static Sandbox failing(Sandbox real, SandboxException.Reason reason) {
        return new Sandbox() {
            public String id() {
                return real.id();
            }

            public ExecResult exec(String command, Duration timeout) {
                throw new SandboxException(reason, "pod alice-sbx-1 vanished");
            }

            public String readFile(String path) {
                return real.readFile(path);
            }

            public void writeFile(String path, String content) {
                real.writeFile(path, content);
            }

            public Sandbox.FileKind stat(String path) {
                return real.stat(path);
            }

            public String diff() {
                return real.diff();
            }

            public String workdir() {
                return real.workdir();
            }

            public void close() {
                real.close();
            }
        };
    }

    @Test
    void anEpisodeTellsWhetherItsSandboxDiedUnderIt() {
        Policy ls = saying("ls", "call: bash\ncommand: ls\n");
        for (var reason : List.of(SandboxException.Reason.SANDBOX_DIED, SandboxException.Reason.IO)) {
            try (Sandbox s = failing(sandbox(), reason)) {
                Episode e = new AgentLoop(ls, TOK, new CompactFormat(), Tools.standard()).run(task.agentView(1), s, LoopConfig.defaults(10, 16384));
                assertEquals(Termination.INFRA_ERROR, e.termination());
                assertEquals("sandbox", e.error().kind());
                assertEquals(reason, e.sandboxFailure());
                assertEquals(reason == SandboxException.Reason.SANDBOX_DIED, e.sandboxDied(), reason.toString());
            }
        }
    }

    @Test
    void testTimeSelectionExecutesTheCandidateWithTheBestReweightedScore() {
        // The policy answers, by seed parity, either an unreadable line (log π = −1) or a submit (log π = −3).
        Policy twoMinds = new Policy() {
            public String name() {
                return "two minds";
            }

            public Completion complete(CompletionRequest r) {
                boolean submit = r.seed() % 2 != 0;
                String text = submit ? "call: submit\n" : "hmm\n";
                int[] ids = TOK.encode(text);
                double[] lp = new double[ids.length];
                lp[0] = submit ? -3 : -1;
                return new Completion(ids, lp, text, Completion.FinishReason.STOP, 0);
            }
        };
        // u = 1 for a readable call, 0 otherwise. β = 1: −1 + 0 beats −3 + 1 → the unreadable answer; β = 5: −3 + 5 wins → submit.
        TestTimeSelection.StepScorer readable = (soFar, cands) -> cands.stream()
                .map(p -> p instanceof ToolCallFormat.Parsed.Call ? 1.0 : 0.0).toList();
        var cfg = LoopConfig.defaults(3, 16384).withSampling(1.0, 1.0, 10L, 64);
        try (Sandbox s = sandbox()) {
            Episode weak = new AgentLoop(twoMinds, TOK, new CompactFormat(), Tools.standard(), new TestTimeSelection(2, 1.0, readable))
                    .run(task.agentView(1), s, cfg);
            assertEquals(Termination.MAX_STEPS, weak.termination());
        }
        try (Sandbox s = sandbox()) {
            Episode strong = new AgentLoop(twoMinds, TOK, new CompactFormat(), Tools.standard(), new TestTimeSelection(2, 5.0, readable))
                    .run(task.agentView(1), s, cfg);
            assertEquals(Termination.SUBMITTED, strong.termination());
            assertEquals(1, strong.trajectory().turns().size());
        }
    }

    @Test
    void longObservationsKeepHeadAndTail() {
        // byte tokens: k kept characters + a notice of 27 + 3 digits fit in 64 for k = 34
        String capped = AgentLoop.cap("a".repeat(100) + "b".repeat(100), 64, TOK);
        assertEquals("a".repeat(17) + "\n[... 166 characters cut ...]\n" + "b".repeat(17), capped);
        assertEquals(64, TOK.encode(capped).length);
        assertEquals("short", AgentLoop.cap("short", 64, TOK));
    }
}
