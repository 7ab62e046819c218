package ai.openalice.rl.agent.loop;

import ai.openalice.rl.model.tokenizer.Tokenizer;
import java.util.Arrays;
import java.util.OptionalInt;

/**
 * Lays out an episode's context in tokens: role markers are the tokenizer's special tokens when it
 * has them ({@code <|system|>}, {@code <|user|>}, {@code <|assistant|>}, {@code <|tool_result|>}),
 * plain-text headers otherwise.
 */
final class ChatTemplate {
    private final Tokenizer tokenizer;

    ChatTemplate(Tokenizer tokenizer) {
        this.tokenizer = tokenizer;
    }

    int[] system(String text) {
        return concat(header("<|system|>", "### system\n"), tokenizer.encode(text));
    }

    int[] user(String text) {
        return concat(header("<|user|>", "\n### user\n"), tokenizer.encode(text));
    }

    int[] assistant() {
        return header("<|assistant|>", "\n### assistant\n");
    }

    int[] toolResult(String text) {
        return concat(header("<|tool_result|>", "\n### tool result\n"), tokenizer.encode(text));
    }

    private int[] header(String special, String text) {
        OptionalInt id = tokenizer.special(special);
        return id.isPresent() ? new int[] {id.getAsInt()} : tokenizer.encode(text);
    }

    static int[] concat(int[]... parts) {
        int n = Arrays.stream(parts).mapToInt(p -> p.length).sum();
        int[] out = new int[n];
        int at = 0;
        for (int[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
