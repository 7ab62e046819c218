package ai.openalice.rl.servicekit;

import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

/**
 * The transactional outbox's relay: rows written in the same transaction as the state they
 * announce ({@code <schema>.outbox(id, topic, event_key, payload, sent_at)}, topic = a channel
 * name) are sent to Kafka in order and marked sent once the broker acknowledged them.
 * At-least-once (a crash between the send and the mark re-sends; consumers dedupe); several
 * instances share a table safely ({@code FOR UPDATE SKIP LOCKED}). A service calls
 * {@link #relay()} from a scheduled method. Every record carries the header
 * {@value #PRODUCER_HEADER} = the schema name, so a service that reads a topic it also writes
 * can skip its own records.
 */
public final class OutboxRelay {
    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);
    /** The Kafka header naming the service (its schema) whose outbox sent the record. */
    public static final String PRODUCER_HEADER = "alice-producer";

    private final Pool pool;
    private final String schema;
    private final Map<String, MutinyEmitter<byte[]>> channels;

    public OutboxRelay(Pool pool, String schema, Map<String, MutinyEmitter<byte[]>> channels) {
        this.pool = pool;
        this.schema = schema;
        this.channels = Map.copyOf(channels);
    }

    /** Sends everything waiting; logs and returns on failure (the next call retries). */
    public void relay() {
        try {
            while (relayBatch() > 0) {
                // drain what is waiting
            }
        } catch (RuntimeException e) {
            LOG.warnf("outbox relay (%s): %s (will retry)", schema, e.getMessage());
        }
    }

    /** Sends up to 100 unsent rows; returns how many. */
    public int relayBatch() {
        return pool.withTransaction(conn -> conn
                .preparedQuery("SELECT id, topic, event_key, payload FROM " + schema + ".outbox WHERE sent_at IS NULL ORDER BY id LIMIT 100"
                        + " FOR UPDATE SKIP LOCKED")
                .execute()
                .chain(rows -> {
                    List<Long> ids = new ArrayList<>();
                    Uni<Void> chain = Uni.createFrom().voidItem();
                    for (Row r : rows) {
                        ids.add(r.getLong("id"));
                        String channel = r.getString("topic");
                        String key = r.getString("event_key");
                        byte[] payload = r.getBuffer("payload").getBytes();
                        chain = chain.chain(() -> send(channel, key, payload));
                    }
                    if (ids.isEmpty()) {
                        return Uni.createFrom().item(0);
                    }
                    return chain.chain(() -> conn.preparedQuery("UPDATE " + schema + ".outbox SET sent_at = now() WHERE id = ANY($1)")
                            .execute(Tuple.of(ids.toArray(Long[]::new)))).replaceWith(ids.size());
                }))
                .await().atMost(Duration.ofSeconds(60));
    }

    private Uni<Void> send(String channel, String key, byte[] payload) {
        MutinyEmitter<byte[]> emitter = channels.get(channel);
        if (emitter == null) {
            return Uni.createFrom().failure(new IllegalStateException("outbox row for unknown channel " + channel));
        }
        var headers = new RecordHeaders().add(PRODUCER_HEADER, schema.getBytes(StandardCharsets.UTF_8));
        return emitter.sendMessage(Message.of(payload).addMetadata(OutgoingKafkaRecordMetadata.<String>builder().withKey(key).withHeaders(headers).build()));
    }

    /** Whether {@code record} was sent by the outbox of the service with schema {@code schema}. */
    public static boolean sentBy(String schema, org.apache.kafka.clients.consumer.ConsumerRecord<?, ?> record) {
        var h = record.headers().lastHeader(PRODUCER_HEADER);
        return h != null && schema.equals(new String(h.value(), StandardCharsets.UTF_8));
    }
}
