package ai.openalice.rl.servicekit;

import ai.openalice.rl.events.Topic;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.kafka.api.OutgoingKafkaRecordMetadata;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

/**
 * The transactional outbox's relay: rows {@link Outbox} queued in the same transaction as the
 * state they announce are sent to Kafka in order, each to its topic's emitter, and marked sent once
 * the broker acknowledged them. At-least-once (a crash between the send and the mark re-sends;
 * consumers dedupe); several instances share a table safely ({@code FOR UPDATE SKIP LOCKED}). A
 * service calls {@link #relay()} from a scheduled method. Every record carries the header
 * {@value #PRODUCER_HEADER} = the schema name, so a service that reads a topic it also writes can
 * skip its own records. Sent rows are kept {@code keepSent} for audit, then deleted in batches
 * (a relayed row is never needed again).
 *
 * <p>A row Kafka can never take — its payload over {@code maxRecordBytes}, or refused by the
 * producer or broker as too large — would otherwise fail its batch on every attempt and hold up
 * every row behind it, for good. Such a row is set aside instead: marked with the reason in
 * {@code dead_reason} (and {@code sent_at}, so that the rows behind it go), kept with its payload
 * (never pruned: nothing is lost), logged, and counted in
 * {@code alice_outbox_dead_total{schema,topic}}.
 */
public final class OutboxRelay {
    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);
    /** The Kafka header naming the service (its schema) whose outbox sent the record. */
    public static final String PRODUCER_HEADER = "alice-producer";
    /** Rows deleted per statement, so that pruning never holds many locks or a long transaction. */
    static final int PRUNE_BATCH = 1000;
    /**
     * The release before topic names were stored queued rows under its emitters' channel names;
     * a row it left unsent is still sent where it was meant to go.
     */
    static final Map<String, Topic> EARLIER_CHANNELS = Map.of("rollouts-requested", Topic.ROLLOUTS_REQUESTED, "tasks-rejected",
            Topic.TASKS_REJECTED, "tasks-accepted-out", Topic.TASKS_ACCEPTED, "rollouts-completed", Topic.ROLLOUTS_COMPLETED,
            "verifications-completed", Topic.VERIFICATIONS_COMPLETED, "rewards-scored", Topic.REWARDS_SCORED, "checkpoints-published",
            Topic.CHECKPOINTS_PUBLISHED, "training-metrics", Topic.TRAINING_METRICS);

    private final Pool pool;
    private final Outbox outbox;
    private final Map<Topic, MutinyEmitter<byte[]>> emitters;
    private final Duration keepSent;
    private final Duration pruneEvery;
    private final int maxRecordBytes;
    private final BiConsumer<String, String> onDead;
    private long lastPrune;

    /**
     * A relay of {@code outbox} to {@code emitters} (one per topic the service writes), keeping sent
     * rows {@code keepSent}, setting aside rows over {@code maxRecordBytes}; {@code onDead} is told
     * the topic and the reason of each row set aside.
     */
    public OutboxRelay(Pool pool, Outbox outbox, Map<Topic, MutinyEmitter<byte[]>> emitters, Duration keepSent, Duration pruneEvery,
            int maxRecordBytes, BiConsumer<String, String> onDead) {
        this.pool = pool;
        this.outbox = outbox;
        this.emitters = Map.copyOf(emitters);
        this.keepSent = keepSent;
        this.pruneEvery = pruneEvery;
        this.maxRecordBytes = maxRecordBytes;
        this.onDead = onDead;
    }

    /** Sends everything waiting, then (at most every {@code pruneEvery}) prunes; logs and returns on failure (the next call retries). */
    public void relay() {
        try {
            while (relayBatch() > 0) {
                // drain what is waiting
            }
            long now = System.nanoTime();
            if (now - lastPrune >= pruneEvery.toNanos()) {
                lastPrune = now;
                int gone = prune();
                if (gone > 0) {
                    LOG.debugf("outbox %s: %d sent row(s) older than %s deleted", outbox.schema(), gone, keepSent);
                }
            }
        } catch (RuntimeException e) {
            LOG.warnf("outbox relay (%s): %s (will retry)", outbox.schema(), e.getMessage());
        }
    }

    /** Sends up to 100 unsent rows; returns how many. */
    public int relayBatch() {
        String table = outbox.schema() + ".outbox";
        return pool.withTransaction(conn -> conn
                .preparedQuery("SELECT id, topic, event_key, payload FROM " + table + " WHERE sent_at IS NULL ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED")
                .execute()
                .chain(rows -> {
                    List<Long> ids = new ArrayList<>();
                    Uni<Void> chain = Uni.createFrom().voidItem();
                    for (Row r : rows) {
                        long id = r.getLong("id");
                        ids.add(id);
                        String topic = r.getString("topic");
                        String key = r.getString("event_key");
                        byte[] payload = r.getBuffer("payload").getBytes();
                        if (payload.length > maxRecordBytes) {
                            chain = chain.chain(() -> setAside(conn, id, topic, "a payload of " + payload.length + " bytes is over alice.outbox.max-record-bytes ("
                                    + maxRecordBytes + "); the broker would refuse it"));
                        } else {
                            chain = chain.chain(() -> send(topic, key, payload).onFailure(OutboxRelay::tooLarge)
                                    .recoverWithUni(e -> setAside(conn, id, topic, "Kafka refused a payload of " + payload.length + " bytes as too large: "
                                            + e.getMessage())));
                        }
                    }
                    if (ids.isEmpty()) {
                        return Uni.createFrom().item(0);
                    }
                    return chain.chain(() -> conn.preparedQuery("UPDATE " + table + " SET sent_at = now() WHERE id = ANY($1)")
                            .execute(Tuple.of(ids.toArray(Long[]::new)))).replaceWith(ids.size());
                }))
                .await().atMost(Duration.ofSeconds(60));
    }

    private Uni<Void> setAside(SqlConnection conn, long id, String topic, String reason) {
        LOG.errorf("outbox %s: row %d for %s set aside, not sent: %s (kept with its payload; the rows behind it go on)", outbox.schema(), id,
                topic, reason);
        onDead.accept(topic, reason);
        return conn.preparedQuery("UPDATE " + outbox.schema() + ".outbox SET dead_reason = $2 WHERE id = $1").execute(Tuple.of(id, reason))
                .replaceWithVoid();
    }

    /** A failure no retry can mend: the record is too large for the producer or the broker. */
    static boolean tooLarge(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RecordTooLargeException
                    || t instanceof RecordBatchTooLargeException) {
                return true;
            }
        }
        return false;
    }

    /** Deletes the rows sent more than {@code keepSent} ago, {@value #PRUNE_BATCH} at a time; returns how many. */
    public int prune() {
        String table = outbox.schema() + ".outbox";
        return (int) Retention.drain(pool, PRUNE_BATCH, Retention.UNBOUNDED, batch -> pool.preparedQuery("DELETE FROM " + table
                + " WHERE id IN (SELECT id FROM " + table + " WHERE sent_at < now() - make_interval(secs => $1) AND dead_reason IS NULL"
                + " ORDER BY id LIMIT $2)").execute(Tuple.of((double) keepSent.toMillis() / 1000, batch)).await().atMost(Duration.ofSeconds(60))
                .rowCount(), table);
    }

    private Uni<Void> send(String topic, String key, byte[] payload) {
        MutinyEmitter<byte[]> emitter = topicOf(topic).map(emitters::get).orElse(null);
        if (emitter == null) {
            return Uni.createFrom().failure(new IllegalStateException("outbox " + outbox.schema() + " has a row for " + topic
                    + ", which this service does not write (it writes " + emitters.keySet() + ")"));
        }
        var headers = new RecordHeaders().add(PRODUCER_HEADER, outbox.schema().getBytes(StandardCharsets.UTF_8));
        return emitter.sendMessage(Message.of(payload).addMetadata(OutgoingKafkaRecordMetadata.<String>builder().withKey(key).withHeaders(headers).build()));
    }

    /** The topic a row's {@code topic} column names: a topic's name, or a channel name of the release before. */
    static Optional<Topic> topicOf(String column) {
        return Topic.byName(column).or(() -> Optional.ofNullable(EARLIER_CHANNELS.get(column)));
    }

    /** Whether {@code record} was sent by the outbox of the service with schema {@code schema}. */
    public static boolean sentBy(String schema, ConsumerRecord<?, ?> record) {
        var h = record.headers().lastHeader(PRODUCER_HEADER);
        return h != null && schema.equals(new String(h.value(), StandardCharsets.UTF_8));
    }
}
