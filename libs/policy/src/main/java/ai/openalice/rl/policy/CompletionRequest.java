package ai.openalice.rl.policy;

import java.util.List;

/**
 * What to complete and how.
 *
 * @param prompt the context as token ids
 * @param maxTokens the most tokens to generate
 * @param temperature 0 = greedy
 * @param topP nucleus mass in (0, 1]
 * @param seed reproducible sampling; null = any
 * @param stop strings that end the completion (not included in it)
 * @param policyVersion pin a loaded version; null = the current one
 */
public record CompletionRequest(int[] prompt, int maxTokens, double temperature, double topP, Long seed, List<String> stop, Long policyVersion) {

    public CompletionRequest {
        if (prompt == null || prompt.length == 0) {
            throw new IllegalArgumentException("prompt must hold at least one token");
        }
        if (maxTokens < 1) {
            throw new IllegalArgumentException("max_tokens must be >= 1, got " + maxTokens);
        }
        if (!(temperature >= 0) || !(topP > 0 && topP <= 1)) {
            throw new IllegalArgumentException("temperature must be >= 0 and top_p in (0, 1], got " + temperature + ", " + topP);
        }
        prompt = prompt.clone();
        stop = stop == null ? List.of() : List.copyOf(stop);
    }

    public static CompletionRequest greedy(int[] prompt, int maxTokens) {
        return new CompletionRequest(prompt, maxTokens, 0, 1, 0L, List.of(), null);
    }
}
