package ai.openalice.rl.agent.format;

import ai.openalice.rl.agent.tools.Tool;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * JSON function calls, as large models served over an OpenAI-compatible API write them:
 * {@code <tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>} (the tags are
 * optional; the first JSON object with a {@code name} is the call).
 */
public final class JsonFunctionFormat implements ToolCallFormat {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public String name() {
        return "json";
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
        int start = completion.indexOf('{');
        while (start >= 0) {
            try {
                var parser = JSON.getFactory().createParser(completion.substring(start));
                JsonNode node = JSON.readTree(parser);
                if (node != null && node.isObject() && node.path("name").isTextual()) {
                    JsonNode args = node.get("arguments");
                    if (args != null && args.isTextual()) {
                        args = JSON.readTree(args.asText()); // OpenAI sends arguments as a JSON string
                    }
                    if (args == null || args.isNull()) {
                        args = JSON.createObjectNode();
                    }
                    if (!args.isObject()) {
                        return new Parsed.Unparsable("\"arguments\" must be a JSON object");
                    }
                    return new Parsed.Call(node.get("name").asText(), (ObjectNode) args);
                }
            } catch (JsonProcessingException e) {
                // not JSON from here: try the next brace
            } catch (java.io.IOException e) {
                return new Parsed.Unparsable("unreadable JSON: " + e.getMessage());
            }
            start = completion.indexOf('{', start + 1);
        }
        return new Parsed.Unparsable("no function call found; answer with <tool_call>{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}</tool_call>");
    }

    @Override
    public String render(String tool, ObjectNode args) {
        ObjectNode call = JSON.createObjectNode();
        call.put("name", tool);
        call.set("arguments", args);
        return "<tool_call>" + call + "</tool_call>";
    }
}
