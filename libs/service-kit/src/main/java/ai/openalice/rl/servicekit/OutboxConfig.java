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

    /**
     * The largest payload relayed: a row over it is set aside (kept, never sent) rather than holding
     * up every row behind it. Kafka's defaults take a record of at most 1 MiB (the producer's
     * {@code max.request.size}, the broker's {@code message.max.bytes}) including key, headers and
     * batch framing: 1,000,000 leaves room for those.
     */
    @WithDefault("1000000")
    int maxRecordBytes();
}
