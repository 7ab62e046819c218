package ai.openalice.rl.events.task;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Per-task budgets. {@code maxContextTokens} null means the policy's own context length. */
public record Limits(
        @JsonProperty("max_steps") int maxSteps,
        @JsonProperty("max_context_tokens") Integer maxContextTokens,
        @JsonProperty("episode_timeout_s") int episodeTimeoutS,
        @JsonProperty("test_timeout_s") int testTimeoutS) {

    public static final int DEFAULT_MAX_STEPS = 50;
    public static final int DEFAULT_EPISODE_TIMEOUT_S = 300;
    public static final int DEFAULT_TEST_TIMEOUT_S = 300;

    public static Limits defaults() {
        return new Limits(DEFAULT_MAX_STEPS, null, DEFAULT_EPISODE_TIMEOUT_S, DEFAULT_TEST_TIMEOUT_S);
    }

    /** These limits with another context bound ({@code null}: the policy's own). */
    public Limits withMaxContextTokens(Integer tokens) {
        return new Limits(maxSteps, tokens, episodeTimeoutS, testTimeoutS);
    }
}
