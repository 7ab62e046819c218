package ai.openalice.rl.rubric.config;

import ai.openalice.rl.events.RunProfile;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** rubric-prm's settings ({@code rubric.*}). */
@ConfigMapping(prefix = "rubric")
public interface RubricConfig {

    /** The margin γ ∈ (½, 1) of the reward composition. */
    @WithDefault("0.8")
    double gamma();

    /**
     * Only a submitted fix counts: r_exec = 0 for an episode that ran out of turns, context or
     * time, whatever its final diff (which the verifier still checks and reports). For training
     * without compact filtering, so that not submitting is never rewarded as a fix.
     */
    @WithDefault(RunProfile.SUBMIT_REQUIRED)
    boolean submitRequired();

    /** Waiting for a task version that trails its verdict (separate topics): attempts, doubling from the first pause. */
    @WithDefault("8")
    int waitAttempts();

    /** The first pause of that wait. */
    @WithDefault("PT0.25S")
    Duration waitBackoff();

    /** The Rubric Agent: a model writes each task's rubric (off: the built-in rubric, or the task's own). */
    Agent agent();

    /** The Rubric Agent's settings. */
    interface Agent {
        /** Whether a model writes rubrics for tasks that bring none. */
        @WithDefault("false")
        boolean enabled();

        /** The OpenAI-compatible completions server that writes them. */
        @WithDefault("http://127.0.0.1:8085")
        String url();

        /** Completion budget of one rubric. */
        @WithDefault("768")
        int maxTokens();
    }
}
