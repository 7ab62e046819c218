package ai.openalice.rl.agent.format;

import ai.openalice.rl.agent.tools.Tool;
import ai.openalice.rl.model.chat.ToolCalls;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * JSON function calls, as Qwen/Hermes-style and Llama 3.1 models write them:
 * {@code <tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>} (Hermes; the
 * tags are optional) or {@code {"name": "bash", "parameters": {"command": "ls"}}} (Llama 3.1 JSON).
 * Either is read whichever the format writes: the first JSON object with a {@code name} is the
 * call, its arguments under {@code arguments} (an object, or a JSON string as OpenAI sends them)
 * or {@code parameters}.
 */
public final class JsonFunctionFormat implements ToolCallFormat {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final boolean llama;

    /** Hermes/Qwen: {@code <tool_call>{"name": …, "arguments": …}</tool_call>}. */
    public JsonFunctionFormat() {
        this(false);
    }

    private JsonFunctionFormat(boolean llama) {
        this.llama = llama;
    }

    /** Llama 3.1 JSON tool calling: {@code {"name": …, "parameters": …}}, untagged. */
    public static JsonFunctionFormat llama3() {
        return new JsonFunctionFormat(true);
    }

    @Override
    public String name() {
        return llama ? "llama3_json" : "json";
    }

    @Override
    public String describe(List<Tool> tools) {
        var sb = new StringBuilder("Answer with exactly one function call as JSON inside <tool_call></tool_call>:"
                + " {\"name\": TOOL, \"arguments\": {…}}.\nFunctions:\n");
        for (Tool t : tools) {
            sb.append("- ").append(t.usage()).append('\n');
        }
        return sb.toString();
    }

    @Override
    public Parsed parse(String completion) {
        try {
            var calls = ToolCalls.parse(completion);
            if (!calls.isEmpty()) {
                return new Parsed.Call(calls.getFirst().name(), calls.getFirst().arguments());
            }
        } catch (ToolCalls.Malformed e) {
            return new Parsed.Unparsable(e.getMessage());
        }
        return new Parsed.Unparsable(llama ? "no function call found; answer with {\"name\": \"bash\", \"parameters\": {\"command\": \"ls\"}}"
                : "no function call found; answer with <tool_call>{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}</tool_call>");
    }

    @Override
    public String render(String tool, ObjectNode args) {
        ObjectNode call = JSON.createObjectNode();
        call.put("name", tool);
        call.set(llama ? "parameters" : "arguments", args);
        return llama ? call.toString() : "<tool_call>\n" + call + "\n</tool_call>";
    }
}
