package ai.openalice.rl.verifier.messaging;

import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

/**
 * Relays outbox rows to Kafka in order, marking each one sent once the broker acknowledged it.
 * At-least-once: a crash between the send and the mark re-sends, and consumers dedupe by
 * rolloutId. Several instances share the table safely ({@code FOR UPDATE SKIP LOCKED}).
 */
@ApplicationScoped
public class OutboxRelay {
    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);

    @Inject
    Pool pool;

    @Inject
    @Channel(Channels.VERIFICATIONS_COMPLETED)
    MutinyEmitter<byte[]> verifications;

    @Scheduled(every = "${verifier.outbox-interval}", delayed = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void relay() {
        try {
            while (relayBatch() > 0) {
                // drain what is waiting
            }
        } catch (RuntimeException e) {
            LOG.warnf("outbox relay: %s (will retry)", e.getMessage());
        }
    }

    /** Sends up to 100 unsent rows; returns how many. */
    int relayBatch() {
        return pool.withTransaction(conn -> conn
                .preparedQuery("SELECT id, topic, event_key, payload FROM verifier.outbox WHERE sent_at IS NULL ORDER BY id LIMIT 100"
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
                    return chain.chain(() -> conn.preparedQuery("UPDATE verifier.outbox SET sent_at = now() WHERE id = ANY($1)")
                            .execute(Tuple.of(ids.toArray(Long[]::new)))).replaceWith(ids.size());
                }))
                .await().atMost(Duration.ofSeconds(60));
    }

    private Uni<Void> send(String channel, String key, byte[] payload) {
        if (!Channels.VERIFICATIONS_COMPLETED.equals(channel)) {
            return Uni.createFrom().failure(new IllegalStateException("outbox row for unknown channel " + channel));
        }
        var message = Message.of(payload).addMetadata(OutgoingKafkaRecordMetadata.<String>builder().withKey(key).build());
        return verifications.sendMessage(message);
    }
}
