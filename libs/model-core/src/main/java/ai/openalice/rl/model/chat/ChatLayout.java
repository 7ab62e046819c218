package ai.openalice.rl.model.chat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Arrays;

/**
 * How an agent episode is laid out in a model's tokens. The agent loop never re-renders earlier
 * turns: each turn's prompt is the previous prompt, the sampled completion as sampled, and
 * {@link #afterCompletion}'s tokens — so what the learner trains on is exactly what the policy was
 * conditioned on and produced.
 */
public interface ChatLayout {

    /** The first prompt: the system prompt, the task, then the assistant's header. {@code tools}: OpenAI tool definitions, or null. */
    int[] opening(String system, String user, JsonNode tools);

    /** What follows a completion: the end of the assistant's turn if the completion did not end it, the tool result, the assistant's header. */
    int[] afterCompletion(int[] completion, String observation);

    /** Whether the system prompt must describe the tools itself (false when the template renders {@code tools}). */
    boolean describesTools();

    /** The layout for one episode (a layout may remember its episode's opening). */
    default ChatLayout forEpisode() {
        return this;
    }

    /** The token ids of {@code parts}, one after another: how a turn's prompt grows from the last. */
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
