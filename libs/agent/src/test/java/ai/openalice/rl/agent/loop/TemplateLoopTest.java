package ai.openalice.rl.agent.loop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.agent.format.JsonFunctionFormat;
import ai.openalice.rl.agent.scripted.OraclePolicy;
import ai.openalice.rl.agent.tools.Tools;
import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.harness.Harness;
import ai.openalice.rl.harness.VerifierOptions;
import ai.openalice.rl.jinja.TemplateException;
import ai.openalice.rl.model.chat.ChatTemplate;
import ai.openalice.rl.model.chat.TemplateChat;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.model.learner.Sample;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.Policy;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent loop laid out by a real chat template (Qwen3's) over a HuggingFace tokenizer: a
 * five-turn episode whose every prompt is the previous prompt, the completion as sampled, and the
 * observation in the template's tool role — worked out by hand from the template — and whose
 * trainer batch holds exactly those ids.
 */
class TemplateLoopTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static LocalSandboxProvider provider;
    static Task task;
    static HuggingFaceTokenizer tok;
    static ChatTemplate qwen3;

    @BeforeAll
    static void setUp(@TempDir Path model) throws Exception {
        provider = new LocalSandboxProvider(LocalSandboxConfig.defaults()
                .withRoot(Path.of("/tmp", "alice-rl-test-tloop-" + UUID.randomUUID().toString().substring(0, 8))));
        task = ((TaskReader.Line.Valid) TaskReader.read(Path.of("..", "..", "examples", "tasks", "calc.jsonl").toAbsolutePath().normalize())
                .getFirst()).task();
        JSON.writeValue(model.resolve("tokenizer.json").toFile(), TinyModels.byteLevelTokenizer(List.of("<|endoftext|>", "<|im_start|>", "<|im_end|>")));
        JSON.writeValue(model.resolve("generation_config.json").toFile(), JSON.createObjectNode().set("eos_token_id", JSON.readTree("[258, 256]")));
        tok = HuggingFaceTokenizer.forModel(model);
        qwen3 = ChatTemplate.of(Files.readString(Path.of("..", "model-core", "src", "test", "resources", "chat-templates", "qwen3.jinja")), Map.of());
    }

    @AfterAll
    static void tearDown() {
        provider.close();
        tok.close();
    }

    @Test
    void fiveTurnsAreTokenExactAndTheBatchHoldsTheSameIds() throws Exception {
        var steps = (ArrayNode) JSON.readTree("""
                [{"tool": "file_editor", "args": {"command": "view", "path": "calc/ops.py"}},
                 {"tool": "bash", "args": {"command": "python3 -m unittest"}},
                 {"tool": "file_editor", "args": {"command": "str_replace", "path": "calc/ops.py", "old_str": "    return a - b", "new_str": "    return a + b"}},
                 {"tool": "bash", "args": {"command": "python3 -m unittest"}},
                 {"tool": "submit", "args": {}}]""");
        var format = new JsonFunctionFormat();
        var seen = new ArrayList<int[]>();
        var oracle = OraclePolicy.replaying(steps, tok, format);
        Policy recording = new Policy() {
            public String name() {
                return "recording";
            }

            public Completion complete(CompletionRequest r) {
                seen.add(r.prompt());
                return oracle.complete(r);
            }
        };
        var loop = new AgentLoop(recording, tok, format, Tools.standard()).withLayout(new TemplateChat(qwen3, tok, Map.of()));
        Episode e;
        String workdir;
        try (Sandbox s = provider.create(SandboxSpec.of(WorkspaceSource.of(task.workspace(), null)))) {
            workdir = s.workdir();
            e = loop.run(task.agentView(1), s, LoopConfig.defaults(10, 1 << 16));
        }
        assertEquals(Termination.SUBMITTED, e.termination(), String.valueOf(e.error()));
        List<Turn> turns = e.trajectory().turns();
        assertEquals(5, turns.size());
        assertEquals(VerificationStatus.RESOLVED, new Harness(provider, VerifierOptions.defaults()).verify(task, e.patch()).status());

        // the opening: the template's system turn with the tools, the task, the assistant header
        String opening = tok.decode(ids(turns.get(0).promptDeltaTokenIds()));
        String system = loop.systemPrompt(workdir);
        assertTrue(opening.startsWith("<|im_start|>system\n" + system + "\n\n# Tools\n\nYou may call one or more functions"), opening);
        assertTrue(opening.contains("\n{\"type\": \"function\", \"function\": {\"name\": \"bash\", \"description\": "), opening);
        assertTrue(opening.endsWith("</tool_call><|im_end|>\n<|im_start|>user\n" + task.problemStatement() + "<|im_end|>\n<|im_start|>assistant\n"), opening.substring(Math.max(0, opening.length() - 400)));
        assertTrue(!system.contains("file_editor(command"), "the template lists the tools; the system prompt does not repeat them");

        int[] context = new int[0];
        for (int i = 0; i < turns.size(); i++) {
            Turn t = turns.get(i);
            if (i > 0) {
                // Qwen3: <|im_end|> closes the assistant turn (sampled, so not repeated), "\n", the tool result as a user turn, the header
                String expected = "\n<|im_start|>user\n<tool_response>\n" + turns.get(i - 1).observation() + "\n</tool_response><|im_end|>\n<|im_start|>assistant\n";
                assertArrayEquals(tok.encode(expected), ids(t.promptDeltaTokenIds()), "delta of turn " + i);
                assertEquals(expected, tok.decode(ids(t.promptDeltaTokenIds())));
            }
            context = concat(context, ids(t.promptDeltaTokenIds()));
            assertArrayEquals(context, seen.get(i), "the prompt of turn " + i + " is the previous prompt + completion + delta");
            int[] completion = ids(t.completionTokenIds());
            assertEquals(258, completion[completion.length - 1], "each completion ends with <|im_end|>, kept");
            context = concat(context, completion);
        }

        // the trainer's rows: the same ids, shifted by one, completion tokens weighted
        var batch = SequenceBatch.of(List.of(new Sample(UUID.randomUUID(), turns, 1.0)), context.length, Aggregation.SEQ_MEAN_TOKEN_MEAN, context.length)
                .batch();
        assertEquals(context.length - 1, batch.width());
        for (int p = 0; p < batch.width(); p++) {
            assertEquals(context[p], batch.inputs()[p], "input " + p);
            assertEquals(context[p + 1], batch.targets()[p], "target " + p);
        }
        int completions = turns.stream().mapToInt(t -> t.completionTokenIds().size()).sum();
        assertEquals(completions, batch.completionTokens());

        // re-rendering the whole conversation gives the same text here (no reasoning to drop) ...
        ArrayNode messages = JSON.createArrayNode();
        messages.addObject().put("role", "system").put("content", system);
        messages.addObject().put("role", "user").put("content", task.problemStatement());
        for (Turn t : turns.subList(0, 4)) {
            String text = tok.decode(ids(t.completionTokenIds()));
            messages.addObject().put("role", "assistant").put("content", text.substring(0, text.length() - "<|im_end|>".length()));
            messages.addObject().put("role", "tool").put("content", t.observation());
        }
        int[] rerendered = tok.encode(qwen3.render(messages, Tools.standard().definitions(), true, Map.of()));
        assertEquals(tok.decode(seen.get(4)), tok.decode(rerendered), "the layout agrees with the template's own rendering");
        // ... but a model that answers with an empty think block (thinking off) would see it vanish from earlier turns
        var first = (ObjectNode) messages.get(2);
        first.put("content", "<think>\n\n</think>\n\n" + first.get("content").asText());
        String drifted = qwen3.render(messages, Tools.standard().definitions(), true, Map.of());
        assertTrue(!drifted.contains("<think>"), "re-rendering drops what the policy was conditioned on; the loop never re-renders");
    }

    @Test
    void aTokenizerWithoutTheTemplatesSpecialTokensIsRefusedNamingThem(@TempDir Path other) throws Exception {
        JSON.writeValue(other.resolve("tokenizer.json").toFile(), TinyModels.byteLevelTokenizer(List.of("<|endoftext|>")));
        try (var plain = HuggingFaceTokenizer.load(other.resolve("tokenizer.json"))) {
            var e = Assertions.assertThrows(TemplateException.class,
                    () -> new TemplateChat(qwen3, plain, Map.of()));
            assertEquals("the chat template writes [<|im_end|>, <|im_start|>] but the tokenizer has no such special token (it has [<|endoftext|>]):"
                    + " the model would read them as plain text", e.getMessage());
        }
    }

    static int[] ids(List<Integer> l) {
        return l.stream().mapToInt(Integer::intValue).toArray();
    }

    static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
