package ai.openalice.rl.model.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ToolCallsTest {
    @Test
    void hermesCallsSeveralAndWithStringArguments() throws Exception {
        var calls = ToolCalls.parse("Let me look {first}.\n<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"echo '}'\"}}\n</tool_call>\n"
                + "<tool_call>\n{\"name\": \"submit\", \"arguments\": \"{}\"}\n</tool_call>");
        assertEquals(2, calls.size());
        assertEquals("bash", calls.get(0).name());
        assertEquals("echo '}'", calls.get(0).arguments().get("command").asText(), "a brace inside a string does not end the call");
        assertEquals(21 + 11 + 1, calls.get(0).start(), "after the first line (21 chars), <tool_call> and its newline");
        assertEquals("submit", calls.get(1).name());
        assertEquals(0, calls.get(1).arguments().size(), "OpenAI's JSON-string arguments are read as JSON");
    }

    @Test
    void llamaJsonAndWhatIsNotACall() throws Exception {
        var calls = ToolCalls.parse("{\"name\": \"bash\", \"parameters\": {\"command\": \"ls\"}}");
        assertEquals("ls", calls.getFirst().arguments().get("command").asText());
        assertEquals(0, ToolCalls.parse("{\"command\": \"ls\"} no name, {not json").size());
        var e = assertThrows(ToolCalls.Malformed.class, () -> ToolCalls.parse("{\"name\": \"bash\", \"arguments\": [1]}"));
        assertEquals("\"arguments\" must be a JSON object", e.getMessage());
    }
}
