package ai.openalice.rl.agent.loop;

import java.time.Duration;
import java.util.List;

/**
 * Budgets and sampling of one episode.
 *
 * @param maxSteps turns before the episode ends as max_steps
 * @param maxContextTokens context budget (prompt + the next completion); beyond it the episode ends as max_context
 * @param episodeTimeout wall clock of the episode
 * @param maxTokensPerTurn the longest completion per turn
 * @param maxObservationTokens an observation longer than this many of the model's tokens keeps its head and tail, and says what was cut
 * @param toolTimeout default per-call timeout of bash; calls may ask for up to twice that
 * @param stop stop strings for policies that need them (JSON format: "</tool_call>")
 */
public record LoopConfig(int maxSteps, int maxContextTokens, Duration episodeTimeout, int maxTokensPerTurn, double temperature, double topP,
        Long seed, int maxObservationTokens, Duration toolTimeout, List<String> stop) {

    public LoopConfig {
        stop = stop == null ? List.of() : List.copyOf(stop);
        if (maxSteps < 1 || maxContextTokens < 16 || maxTokensPerTurn < 1 || maxObservationTokens < 64) {
            throw new IllegalArgumentException("loop budgets too small: " + maxSteps + " steps, " + maxContextTokens + " context, "
                    + maxTokensPerTurn + " tokens per turn, " + maxObservationTokens + " observation tokens");
        }
    }

    public static LoopConfig defaults(int maxSteps, int maxContextTokens) {
        return new LoopConfig(maxSteps, maxContextTokens, Duration.ofMinutes(5), 256, 1.0, 1.0, null, 2000, Duration.ofSeconds(60), List.of());
    }

    public LoopConfig withTimeout(Duration d) {
        return new LoopConfig(maxSteps, maxContextTokens, d, maxTokensPerTurn, temperature, topP, seed, maxObservationTokens, toolTimeout, stop);
    }

    public LoopConfig withSampling(double t, double p, Long s, int tokensPerTurn) {
        return new LoopConfig(maxSteps, maxContextTokens, episodeTimeout, tokensPerTurn, t, p, s, maxObservationTokens, toolTimeout, stop);
    }
}
