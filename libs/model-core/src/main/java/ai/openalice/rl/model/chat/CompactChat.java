package ai.openalice.rl.model.chat;

import ai.openalice.rl.model.tokenizer.Tokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The built-in model's compact chat layout, in tokens: role markers are the tokenizer's special
 * tokens when it has them ({@code <|system|>}, {@code <|user|>}, {@code <|assistant|>},
 * {@code <|tool_result|>}), plain-text headers otherwise. The agent loop lays out episodes with it
 * and the inference service's chat completions render messages with it, so both agree token for
 * token.
 */
public final class CompactChat implements ChatLayout {
    private final Tokenizer tokenizer;

    public CompactChat(Tokenizer tokenizer) {
        this.tokenizer = tokenizer;
    }

    @Override
    public int[] opening(String system, String user, JsonNode tools) {
        return ChatLayout.concat(system(system), user(user), assistant());
    }

    @Override
    public int[] afterCompletion(int[] completion, String observation) {
        return ChatLayout.concat(toolResult(observation), assistant());
    }

    @Override
    public boolean describesTools() {
        return true;
    }

    /**
     * A conversation ({@code role}, {@code content} pairs: system, user, assistant, tool) followed by
     * the assistant's header, ready for the model to continue; an unknown role is an
     * {@link IllegalArgumentException} naming it.
     */
    public int[] conversation(List<Map.Entry<String, String>> messages) {
        var parts = new ArrayList<int[]>();
        for (int i = 0; i < messages.size(); i++) {
            String content = messages.get(i).getValue();
            parts.add(switch (messages.get(i).getKey()) {
                case "system", "developer" -> system(content);
                case "user" -> user(content);
                case "assistant" -> ChatLayout.concat(assistant(), tokenizer.encode(content));
                case "tool" -> toolResult(content);
                default -> throw new IllegalArgumentException("messages[" + i + "].role must be system, user, assistant or tool, got '"
                        + messages.get(i).getKey() + "'");
            });
        }
        parts.add(assistant());
        return ChatLayout.concat(parts.toArray(int[][]::new));
    }

    public int[] system(String text) {
        return ChatLayout.concat(header("<|system|>", "### system\n"), tokenizer.encode(text));
    }

    public int[] user(String text) {
        return ChatLayout.concat(header("<|user|>", "\n### user\n"), tokenizer.encode(text));
    }

    public int[] assistant() {
        return header("<|assistant|>", "\n### assistant\n");
    }

    public int[] toolResult(String text) {
        return ChatLayout.concat(header("<|tool_result|>", "\n### tool result\n"), tokenizer.encode(text));
    }

    private int[] header(String special, String text) {
        OptionalInt id = tokenizer.special(special);
        return id.isPresent() ? new int[] {id.getAsInt()} : tokenizer.encode(text);
    }
}
