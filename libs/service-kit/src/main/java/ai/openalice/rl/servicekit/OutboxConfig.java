package ai.openalice.rl.servicekit;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** The outbox settings every service shares ({@code alice.outbox.*}). */
@ConfigMapping(prefix = "alice.outbox")
public interface OutboxConfig {
    /**
     * How long a sent row is kept (for audit: what was sent, when) before it is deleted. An hour:
     * the same events stay on their topics for days, and a row can hold a whole trajectory (about
     * 60 kB for the built-in model, several times that for a large model's long episodes) — at a
     * day's window the outboxes alone held about 180 kB per rollout of a day's rollouts.
     */
    @WithDefault("PT1H")
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
