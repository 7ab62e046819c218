package ai.openalice.rl.inference.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.testkit.PythonReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The service's chat completions read tool calls out of a model's text as vLLM's Hermes parser
 * ({@code --tool-call-parser hermes}, vLLM 0.32.0's own code, run in its environment) reads them —
 * the parser users of Qwen-style models run — on outputs of every shape a model writes: one call,
 * text before it, parallel calls, braces and non-ASCII inside strings, nested arguments, a call
 * left open at the end, no call, a tag with no JSON. Content is compared without surrounding
 * whitespace (vLLM keeps the newline before the first tag, the service drops it).
 *
 * <p>Two differences are deliberate and asserted as such: arguments that are not a JSON object
 * (vLLM hands {@code [1]} to the client, which cannot call a function with it; the service leaves
 * the text as text), and one broken call among good ones (vLLM then drops every call; the service
 * keeps the good ones — the broken one cannot be run either way).
 */
class HermesToolCallsTest {
    static final ObjectMapper JSON = new ObjectMapper();

    static final List<String> SAME = List.of(
            "<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls -la\"}}\n</tool_call>",
            "Let me look at the tests first.\n<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"pytest -x\"}}\n</tool_call>",
            "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a.py\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"read\", \"arguments\":"
                    + " {\"path\": \"b.py\"}}\n</tool_call>",
            "<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"echo '}' && printf '{'\"}}\n</tool_call>",
            "<tool_call>\n{\"name\": \"write\", \"arguments\": {\"path\": \"café.py\", \"content\": \"print(\\\"naïve — ok\\\")\\n\"}}\n</tool_call>",
            "<tool_call>\n{\"name\": \"edit\", \"arguments\": {\"path\": \"calc.py\", \"edits\": [{\"old\": \"a - b\", \"new\": \"a + b\"}],"
                    + " \"dry_run\": false, \"limit\": null}}\n</tool_call>",
            "Submitting now.\n<tool_call>\n{\"name\": \"submit\", \"arguments\": {}}",
            "The fix is to change the operator; no tool is needed.",
            "I would call <tool_call> here, but I will not.");

    static final String NOT_AN_OBJECT = "<tool_call>\n{\"name\": \"bash\", \"arguments\": [1]}\n</tool_call>";
    static final String ONE_BROKEN = "<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>\n"
            + "<tool_call>\n{\"name\": bash, \"arguments\": {}}\n</tool_call>";

    @Test
    void toolCallsAreReadAsVllmsHermesParserReadsThem() throws Exception {
        List<String> texts = new ArrayList<>(SAME);
        texts.add(NOT_AN_OBJECT);
        texts.add(ONE_BROKEN);
        Path file = Files.createTempFile("hermes", ".json");
        Files.writeString(file, JSON.writeValueAsString(texts));
        JsonNode vllm = PythonReference.vllmReference("hermes", "--model", PythonReference.smolLm2().toString(), "--texts", file.toString())
                .get("results");
        int calls = 0;
        for (int i = 0; i < SAME.size(); i++) {
            var ours = reply(SAME.get(i));
            JsonNode theirs = vllm.get(i);
            String what = "text " + i + ": " + SAME.get(i) + "\nvLLM: " + theirs;
            assertEquals(theirs.get("tools_called").asBoolean(), !ours.calls().isEmpty(), what);
            assertEquals(stripped(theirs.get("content")), ours.content() == null ? null : ours.content().strip(), what);
            assertEquals(theirs.get("calls").size(), ours.calls().size(), what);
            for (int c = 0; c < ours.calls().size(); c++) {
                assertEquals(theirs.at("/calls/" + c + "/name").asText(), ours.calls().get(c).name(), what);
                assertEquals(theirs.at("/calls/" + c + "/arguments"), JSON.readTree(ours.calls().get(c).arguments()), what);
                calls++;
            }
        }
        assertEquals(8, calls, "the calls compared");

        JsonNode notAnObject = vllm.get(SAME.size());
        assertTrue(notAnObject.get("tools_called").asBoolean() && notAnObject.at("/calls/0/arguments").isArray(), "vLLM passes [1] on: " + notAnObject);
        var ours = reply(NOT_AN_OBJECT);
        assertTrue(ours.calls().isEmpty(), "the service does not offer a call it cannot describe as a function's arguments");
        assertEquals(NOT_AN_OBJECT, ours.content());

        JsonNode oneBroken = vllm.get(SAME.size() + 1);
        assertFalse(oneBroken.get("tools_called").asBoolean(), "vLLM drops every call when one is broken: " + oneBroken);
        var kept = reply(ONE_BROKEN);
        assertEquals(1, kept.calls().size(), "the service keeps the call that parses");
        assertEquals("{\"command\":\"ls\"}", kept.calls().getFirst().arguments());
    }

    private static ChatCompletionsResource.Reply reply(String text) {
        return ChatCompletionsResource.Reply.of(new Completion(new int[0], new double[0], text, Completion.FinishReason.STOP, 1), true);
    }

    private static String stripped(JsonNode content) {
        if (content == null || content.isNull()) {
            return null;
        }
        String s = content.asText().strip();
        return s.isEmpty() ? null : s;
    }
}
