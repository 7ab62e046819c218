package ai.openalice.rl.tinker;

import java.util.List;

/** How asample draws: at most {@code maxTokens}, at {@code temperature}, stopping at any of {@code stopTokens}; {@code seed} may be null. */
public record SamplingParams(int maxTokens, double temperature, Long seed, List<Integer> stopTokens) {
    public SamplingParams {
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be at least 1, got " + maxTokens);
        }
        if (!(temperature >= 0)) {
            throw new IllegalArgumentException("temperature must be >= 0, got " + temperature);
        }
        stopTokens = List.copyOf(stopTokens);
    }
}
