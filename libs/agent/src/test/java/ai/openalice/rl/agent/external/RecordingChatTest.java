package ai.openalice.rl.agent.external;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.Turn;
import ai.openalice.rl.harness.HackAttempts;
import ai.openalice.rl.model.chat.ChatTemplate;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.Policy;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent program's chat calls through Qwen3's real chat template and a HuggingFace byte-level
 * tokenizer: what the policy is given, worked out by hand from the template, and what is recorded.
 */
class RecordingChatTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static HuggingFaceTokenizer tok;
    static ChatTemplate qwen3;
    static int imEnd;

    @BeforeAll
    static void setUp(@TempDir Path model) throws Exception {
        if (tok != null) {
            return;
        }
        JSON.writeValue(model.resolve("tokenizer.json").toFile(), TinyModels.byteLevelTokenizer(List.of("<|endoftext|>", "<|im_start|>", "<|im_end|>")));
        JSON.writeValue(model.resolve("generation_config.json").toFile(), JSON.createObjectNode().set("eos_token_id", JSON.readTree("[258, 256]")));
        tok = HuggingFaceTokenizer.forModel(model);
        imEnd = tok.requireSpecial("<|im_end|>");
        qwen3 = ChatTemplate.of(Files.readString(Path.of("..", "model-core", "src", "test", "resources", "chat-templates", "qwen3.jinja")), Map.of());
    }


    /** Answers with the texts given, each ended by {@code <|im_end|>}, and keeps the prompts it was given. */
    static final class Scripted implements Policy {
        final Deque<String> answers;
        final List<int[]> prompts = new ArrayList<>();
        final List<Integer> maxTokens = new ArrayList<>();
        final List<Double> temperatures = new ArrayList<>();

        Scripted(String... answers) {
            this.answers = new ArrayDeque<>(List.of(answers));
        }

        public String name() {
            return "scripted";
        }

        public Completion complete(CompletionRequest r) {
            prompts.add(r.prompt());
            maxTokens.add(r.maxTokens());
            temperatures.add(r.temperature());
            int[] body = tok.encode(answers.removeFirst());
            int[] ids = Arrays.copyOf(body, body.length + 1);
            ids[body.length] = imEnd;
            double[] lp = new double[ids.length];
            Arrays.fill(lp, -0.5);
            return new Completion(ids, lp, tok.decode(ids), Completion.FinishReason.STOP, 3);
        }
    }

    static final RecordingChat.Sampling SAMPLING = new RecordingChat.Sampling(64, 1.0, 1.0, null, null);

    static ArrayNode messages(String... roleContent) {
        ArrayNode m = JSON.createArrayNode();
        for (int i = 0; i < roleContent.length; i += 2) {
            m.addObject().put("role", roleContent[i]).put("content", roleContent[i + 1]);
        }
        return m;
    }

    @Test
    void aConversationThatGoesOnKeepsTheSampledTokensAndAddsOnlyWhatTheTemplateWritesAfterThem() {
        // the answer holds a thinking block, which Qwen3's template drops from earlier turns when it renders them again
        var policy = new Scripted("<think>\nlook first\n</think>\n\nls", "cat a.py");
        var chat = new RecordingChat(qwen3, tok, Map.of(), policy);
        var first = chat.complete(messages("system", "S", "user", "fix it"), null, SAMPLING);
        assertEquals("<think>\nlook first\n</think>\n\nls", first.text(), "the program gets the answer without <|im_end|>");
        assertFalse(first.continued());
        var second = chat.complete(messages("system", "S", "user", "fix it", "assistant", first.text(), "user", "a.py"), null, SAMPLING);
        assertTrue(second.continued());

        String opening = "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nfix it<|im_end|>\n<|im_start|>assistant\n";
        assertArrayEquals(tok.encode(opening), policy.prompts.get(0));
        // the first prompt, the answer's ids as sampled (thinking and <|im_end|> included), then the template's text after the answer
        // with its <|im_end|> left out, since the completion ended with it
        String after = "\n<|im_start|>user\na.py<|im_end|>\n<|im_start|>assistant\n";
        int[] answer = chat.calls().get(0).completion();
        int[] expected = concat(concat(tok.encode(opening), answer), tok.encode(after));
        assertArrayEquals(expected, policy.prompts.get(1));
        // a fresh rendering would have dropped the thinking block the policy saw
        String fresh = qwen3.render(messages("system", "S", "user", "fix it", "assistant", first.text(), "user", "a.py"), null, true, Map.of());
        assertFalse(fresh.contains("look first"));
        assertEquals(expected.length, second.promptTokens());

        var rendered = chat.rendered();
        assertEquals(List.of(opening, after), rendered.stream().map(RecordingChat.Rendered::text).toList());
        for (var r : rendered) {
            assertArrayEquals(tok.encode(r.text()), r.ids(), "what was recorded is the text the endpoint logged, tokenised afresh");
        }
        RecordedCalls.Assembled a = chat.turns();
        assertEquals(1, a.extended());
        assertEquals(0, a.rewritten());
        assertEquals(tok.encode(after).length, a.turns().get(1).promptDeltaTokenIds().size());
        assertEquals(List.of(3L, 3L), a.turns().stream().map(Turn::policyVersion).toList());
    }

    @Test
    void aRewrittenHistoryIsRenderedAfreshAndStartsANewContext() {
        var policy = new Scripted("ls", "done");
        var chat = new RecordingChat(qwen3, tok, Map.of(), policy);
        chat.complete(messages("system", "S", "user", "fix it"), null, SAMPLING);
        // the program summarised its history instead of sending the answer back
        var summary = messages("system", "S", "user", "fix it", "user", "so far: ls showed a.py");
        var second = chat.complete(summary, null, SAMPLING);
        assertFalse(second.continued());
        assertArrayEquals(tok.encode(qwen3.render(summary, null, true, Map.of())), policy.prompts.get(1));
        var a = chat.turns();
        assertEquals(List.of(false, true), a.turns().stream().map(Turn::newContext).toList());
        assertEquals(1, a.rewritten());
    }

    @Test
    void aProgramThatDropsAnAnswerItCouldNotParseStartsANewContextAndItsComplaintIsTheObservation() {
        // mini-swe-agent keeps no answer without a tool call, only its format error
        var policy = new Scripted("no command here", "ls");
        var chat = new RecordingChat(qwen3, tok, Map.of(), policy);
        chat.complete(messages("system", "S", "user", "fix it"), null, SAMPLING);
        var retry = messages("system", "S", "user", "fix it", "user", "Format error: no tool call found.");
        assertFalse(chat.complete(retry, null, SAMPLING).continued());
        assertArrayEquals(tok.encode(qwen3.render(retry, null, true, Map.of())), policy.prompts.get(1), "rendered afresh, as the program sent it");
        var turns = chat.turns().turns();
        assertTrue(turns.get(1).newContext());
        assertEquals("Format error: no tool call found.", turns.get(0).observation());
    }

    @Test
    void anAnswerSentBackChangedIsNotAContinuation() {
        var policy = new Scripted("ls ", "done");
        var chat = new RecordingChat(qwen3, tok, Map.of(), policy);
        chat.complete(messages("system", "S", "user", "fix it"), null, SAMPLING);
        // the program stripped the trailing space of the answer before keeping it
        var second = chat.complete(messages("system", "S", "user", "fix it", "assistant", "ls", "user", "a.py"), null, SAMPLING);
        assertFalse(second.continued());
        assertTrue(chat.turns().turns().get(1).newContext());
    }

    @Test
    void theBudgetCutsAnAnswerToTheContextLeftAndRefusesCallsBeyondIt() {
        var messages = messages("system", "S", "user", "fix it");
        int prompt = tok.encode(qwen3.render(messages, null, true, Map.of())).length;
        var policy = new Scripted("ls", "ls");
        var chat = new RecordingChat(qwen3, tok, Map.of(), policy, new RecordingChat.Budget(1, prompt + 10));
        chat.complete(messages, null, SAMPLING);
        assertEquals(List.of(10), policy.maxTokens, "64 asked, 10 left in the context");
        var e = assertThrows(RecordingChat.BudgetSpent.class, () -> chat.complete(messages, null, SAMPLING));
        assertTrue(e.getMessage().contains("1 calls"), e.getMessage());
        assertEquals(RecordingChat.Spent.CALLS, chat.spent().orElseThrow());
        assertEquals(1, chat.calls().size());

        var tight = new RecordingChat(qwen3, tok, Map.of(), new Scripted("ls"), new RecordingChat.Budget(5, prompt));
        assertThrows(RecordingChat.BudgetSpent.class, () -> tight.complete(messages, null, SAMPLING));
        assertEquals(RecordingChat.Spent.CONTEXT, tight.spent().orElseThrow());
        assertEquals(List.of(), tight.rendered(), "a refused call leaves nothing recorded");
    }

    @Test
    void anAnswersCommandIsItsTurnsActionAsTheHackCountsReadIt() throws Exception {
        var call = JSON.readTree("""
                {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                 "function": {"name": "bash", "arguments": "{\\"command\\": \\"rm -rf tests\\"}"}}]}""");
        var a = RecordingChat.action(call);
        assertEquals("bash", a.tool());
        assertEquals("rm -rf tests", a.args().get("command").asText());
        var fenced = JSON.createObjectNode().put("role", "assistant").put("content", "Look first.\n```mswea_bash_command\nls -la\n```");
        assertEquals("ls -la", RecordingChat.action(fenced).args().get("command").asText());
        assertEquals(null, RecordingChat.action(JSON.createObjectNode().put("role", "assistant").put("content", "I am done.")));
    }

    @Test
    void eachTurnCarriesTheCommandItsAnswerAskedForAndWhatTheProgramSentBack() {
        var policy = new Scripted("```mswea_bash_command\nrm tests/test_a.py\n```", "```mswea_bash_command\npytest\n```", "done");
        var chat = new RecordingChat(qwen3, tok, Map.of(), policy);
        var history = messages("system", "S", "user", "fix it");
        for (String output : List.of("<returncode>0</returncode>", "<returncode>5</returncode>\nno tests ran")) {
            String answer = chat.complete(history, null, SAMPLING).text();
            history.addObject().put("role", "assistant").put("content", answer);
            history.addObject().put("role", "user").put("content", output);
        }
        // the last call sends the tool output as parts and a second message: both are the observation
        history.remove(history.size() - 1);
        history.addObject().put("role", "tool").set("content", JSON.createArrayNode().add(JSON.createObjectNode().put("type", "text").put("text", "no tests ran")));
        history.addObject().put("role", "user").put("content", "go on");
        chat.complete(history, null, SAMPLING);
        var turns = chat.turns().turns();
        assertEquals(List.of("<returncode>0</returncode>", "no tests ran\ngo on", ""), turns.stream().map(Turn::observation).toList());
        assertEquals("rm tests/test_a.py", turns.get(0).action().args().get("command").asText());
        var hacks = HackAttempts.of(turns);
        assertEquals(1, hacks.size(), hacks.toString());
        assertEquals(0, hacks.getFirst().turn());
        assertEquals(HackAttempts.Kind.TEST_EDIT, hacks.getFirst().kind());
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
