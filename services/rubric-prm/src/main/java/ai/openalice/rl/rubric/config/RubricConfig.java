package ai.openalice.rl.rubric.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** rubric-prm's settings ({@code rubric.*}). */
@ConfigMapping(prefix = "rubric")
public interface RubricConfig {

    /** The margin γ ∈ (½, 1) of the reward composition. */
    @WithDefault("0.8")
    double gamma();

    /** Waiting for a rollout or task that trails its verdict (separate topics): attempts, doubling from the first pause. */
    @WithDefault("8")
    int waitAttempts();

    /** The first pause of that wait. */
    @WithDefault("PT0.25S")
    Duration waitBackoff();
}
