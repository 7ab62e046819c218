package ai.openalice.rl.events;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.UUID;

/**
 * Every event on the wire: identity, type (the topic name), schema version, time, W3C trace
 * context, and the payload.
 */
public record Envelope<P extends EventPayload>(
        UUID eventId, String type, int schemaVersion, Instant occurredAt, String traceparent, P payload) {

    public Envelope {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(occurredAt, "occurredAt");
        Objects.requireNonNull(traceparent, "traceparent");
        Objects.requireNonNull(payload, "payload");
        if (!Traceparent.isValid(traceparent)) {
            throw new IllegalArgumentException("traceparent is not a W3C traceparent: " + traceparent);
        }
    }

    /** A new event with a fresh id, the current time and a new trace. */
    public static <P extends EventPayload> Envelope<P> of(P payload) {
        return of(payload, Traceparent.newRoot());
    }

    /** A new event that continues the trace {@code traceparent} (a new span in the same trace). */
    public static <P extends EventPayload> Envelope<P> of(P payload, String traceparent) {
        return new Envelope<>(UUID.randomUUID(), payload.topic().topicName(), payload.topic().schemaVersion(),
                Instant.now().truncatedTo(ChronoUnit.MICROS), Traceparent.childOf(traceparent), payload);
    }

    public Topic topic() {
        return payload.topic();
    }

    public String key() {
        return payload.key();
    }
}
