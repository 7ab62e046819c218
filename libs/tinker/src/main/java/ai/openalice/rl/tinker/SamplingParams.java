package ai.openalice.rl.tinker;

import java.util.List;

/**
 * How asample draws: at most {@code maxTokens}, at {@code temperature} within the nucleus {@code topP},
 * stopping at any of {@code stopTokens} (the stop token is kept in the sample); {@code seed} may be null.
 */
public record SamplingParams(int maxTokens, double temperature, double topP, Long seed, List<Integer> stopTokens) {
    public SamplingParams {
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be at least 1, got " + maxTokens);
        }
        if (!(temperature >= 0)) {
            throw new IllegalArgumentException("temperature must be >= 0, got " + temperature);
        }
        if (!(topP > 0 && topP <= 1)) {
            throw new IllegalArgumentException("topP must be in (0, 1], got " + topP);
        }
        stopTokens = List.copyOf(stopTokens);
    }

    /** The whole distribution (top_p 1). */
    public SamplingParams(int maxTokens, double temperature, Long seed, List<Integer> stopTokens) {
        this(maxTokens, temperature, 1, seed, stopTokens);
    }
}
