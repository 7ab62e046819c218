package ai.openalice.rl.model.chat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Function calls in a completion's text, as Qwen/Hermes-style models write them
 * ({@code <tool_call>{"name": …, "arguments": {…}}</tool_call>}, possibly several) and Llama 3.1
 * writes them ({@code {"name": …, "parameters": {…}}}): every JSON object with a string
 * {@code name}, its arguments under {@code arguments} (an object, or a JSON string as OpenAI sends
 * them) or {@code parameters}.
 */
public final class ToolCalls {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ToolCalls() {}

    /** One call; {@code start} is where its JSON begins in the text. */
    public record Call(String name, ObjectNode arguments, int start) {}

    /** A call whose JSON was found but cannot be used (arguments not an object). */
    public static final class Malformed extends Exception {
        public Malformed(String message) {
            super(message);
        }
    }

    public static List<Call> parse(String text) throws Malformed {
        var out = new ArrayList<Call>();
        int start = text.indexOf('{');
        while (start >= 0) {
            int next = start + 1;
            try (JsonParser p = JSON.getFactory().createParser(text.substring(start))) {
                JsonNode node = JSON.readTree(p);
                if (node != null && node.isObject() && node.path("name").isTextual()) {
                    out.add(new Call(node.get("name").asText(), arguments(node), start));
                    next = start + (int) p.currentLocation().getCharOffset();
                }
            } catch (JsonProcessingException e) {
                // not JSON from this brace: try the next one
            } catch (IOException e) {
                throw new Malformed("unreadable JSON: " + e.getMessage());
            }
            start = text.indexOf('{', next);
        }
        return out;
    }

    private static ObjectNode arguments(JsonNode call) throws Malformed, JsonProcessingException {
        JsonNode args = call.has("arguments") ? call.get("arguments") : call.get("parameters");
        if (args != null && args.isTextual()) {
            args = JSON.readTree(args.asText());
        }
        if (args == null || args.isNull()) {
            return JSON.createObjectNode();
        }
        if (!args.isObject()) {
            throw new Malformed("\"arguments\" must be a JSON object");
        }
        return (ObjectNode) args;
    }
}
