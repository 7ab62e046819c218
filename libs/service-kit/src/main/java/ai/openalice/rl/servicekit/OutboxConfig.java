package ai.openalice.rl.servicekit;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** The outbox settings every service shares ({@code alice.outbox.*}). */
@ConfigMapping(prefix = "alice.outbox")
public interface OutboxConfig {
    /** How long a sent row is kept (for audit: what was sent, when) before it is deleted. */
    @WithDefault("P1D")
    Duration keepSent();

    /** How often sent rows past {@code keep-sent} are looked for. */
    @WithDefault("PT1M")
    Duration pruneEvery();
}
