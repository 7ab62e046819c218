package ai.openalice.rl.servicekit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.testkit.TestStack;
import io.smallrye.mutiny.Uni;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;

/** The outbox on the real database: what a row holds, and which sent rows retention deletes. */
class OutboxTest {
    static final String SCHEMA = "kit_outbox_test";

    @Test
    void aQueuedRowNamesItsTopicAndKeyAndSentRowsGoOnceOlderThanTheWindowInBatches() throws Exception {
        try (var c = TestStack.openDatabase(); var st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE; CREATE SCHEMA " + SCHEMA + "; CREATE TABLE " + SCHEMA
                    + ".outbox (id bigserial PRIMARY KEY, topic text NOT NULL, event_key text NOT NULL, payload bytea NOT NULL,"
                    + " created_at timestamptz NOT NULL DEFAULT now(), sent_at timestamptz, dead_reason text)");
        }
        var vertx = Vertx.vertx();
        var options = PgConnectOptions.fromUri(System.getProperty("alice.db.reactive-url")).setUser(TestStack.dbUser())
                .setPassword(TestStack.dbPassword());
        var pool = PgBuilder.pool().connectingTo(options).using(vertx).build();
        try {
            var outbox = new Outbox(SCHEMA);
            var event = Envelope.of(new CheckpointPublished(3, 30, null, null, null, Map.of()));
            Sql.transaction(pool, sql -> {
                outbox.enqueue(sql, event);
                return null;
            });
            pool.withTransaction(conn -> outbox.enqueue(conn, event)).await().atMost(Duration.ofSeconds(30)); // the reactive callers' way
            try (var c = TestStack.openDatabase(); var st = c.createStatement()) {
                var rs = st.executeQuery("SELECT topic, event_key, payload FROM " + SCHEMA + ".outbox ORDER BY id");
                for (int i = 0; i < 2; i++) {
                    rs.next();
                    assertEquals(List.of("checkpoints.published", "policy"), List.of(rs.getString(1), rs.getString(2)), "the topic's name and the event's key");
                    assertEquals(event, ((EventCodec.Decoded.Ok<?>) EventCodec.decode(Topic.CHECKPOINTS_PUBLISHED,
                            rs.getBytes(3))).envelope());
                }
                st.execute("DELETE FROM " + SCHEMA + ".outbox WHERE id = (SELECT max(id) FROM " + SCHEMA + ".outbox)");
                // 2,500 rows sent two days ago, 2 sent an hour ago, and the unsent one above
                st.execute("INSERT INTO " + SCHEMA + ".outbox (topic, event_key, payload, sent_at) SELECT 'training.metrics', 'trainer', '\\x00',"
                        + " now() - interval '2 days' FROM generate_series(1, 2500)");
                st.execute("INSERT INTO " + SCHEMA + ".outbox (topic, event_key, payload, sent_at) SELECT 'training.metrics', 'trainer', '\\x00',"
                        + " now() - interval '1 hour' FROM generate_series(1, 2)");
            }
            var relay = new OutboxRelay(pool, outbox, Map.of(), Duration.ofDays(1), Duration.ofMinutes(1), 1_000_000, (t, r) -> {});
            assertEquals(2500, relay.prune(), "three batches of at most 1,000: every row sent more than a day ago");
            assertEquals(0, relay.prune());
            try (var c = TestStack.openDatabase(); var st = c.createStatement()) {
                var rs = st.executeQuery("SELECT count(*) FILTER (WHERE sent_at IS NULL), count(*) FROM " + SCHEMA + ".outbox");
                rs.next();
                assertEquals(List.of(1, 3), List.of(rs.getInt(1), rs.getInt(2)), "the unsent row and the two within the window stay");
            }
        } finally {
            pool.closeAndAwait();
            vertx.closeAndAwait();
            try (var c = TestStack.openDatabase(); var st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            }
        }
    }

    /**
     * Five rows: small, over the size limit (1,000 bytes here), small, refused by Kafka as too large,
     * small. One relay pass sends the three small ones in order, sets the other two aside with their
     * reasons (nothing held up behind them), and pruning never deletes a row set aside.
     */
    @Test
    void aRowKafkaCanNeverTakeIsSetAsideAndTheRowsBehindItGo() throws Exception {
        try (var c = TestStack.openDatabase(); var st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE; CREATE SCHEMA " + SCHEMA + "; CREATE TABLE " + SCHEMA
                    + ".outbox (id bigserial PRIMARY KEY, topic text NOT NULL, event_key text NOT NULL, payload bytea NOT NULL,"
                    + " created_at timestamptz NOT NULL DEFAULT now(), sent_at timestamptz, dead_reason text)");
            st.execute("INSERT INTO " + SCHEMA + ".outbox (topic, event_key, payload) VALUES ('training.metrics', 'k', '\\x01'),"
                    + " ('training.metrics', 'k', decode(repeat('00', 1001), 'hex')), ('training.metrics', 'k', '\\x02'),"
                    + " ('training.metrics', 'k', '\\xff'), ('training.metrics', 'k', '\\x03')");
        }
        var sent = new ArrayList<Integer>();
        @SuppressWarnings("unchecked")
        var emitter = (MutinyEmitter<byte[]>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {MutinyEmitter.class}, (proxy, method, args) -> {
                    byte[] payload = (byte[]) ((Message<?>) args[0]).getPayload();
                    if (payload[0] == (byte) 0xff) { // what a broker with a lower message.max.bytes answers
                        return Uni.createFrom().failure(new CompletionException(
                                new RecordTooLargeException("the message is 2 bytes, larger than the broker takes")));
                    }
                    sent.add((int) payload[0]);
                    return Uni.createFrom().voidItem();
                });
        var vertx = Vertx.vertx();
        var options = PgConnectOptions.fromUri(System.getProperty("alice.db.reactive-url")).setUser(TestStack.dbUser())
                .setPassword(TestStack.dbPassword());
        var pool = PgBuilder.pool().connectingTo(options).using(vertx).build();
        var dead = new ArrayList<String>();
        try {
            var relay = new OutboxRelay(pool, new Outbox(SCHEMA), Map.of(Topic.TRAINING_METRICS, emitter), Duration.ofDays(1), Duration.ZERO, 1000,
                    (topic, reason) -> dead.add(topic));
            relay.relay();
            assertEquals(List.of(1, 2, 3), sent, "the small rows, in order, in one pass");
            assertEquals(List.of("training.metrics", "training.metrics"), dead);
            try (var c = TestStack.openDatabase(); var st = c.createStatement()) {
                var rs = st.executeQuery("SELECT id, sent_at IS NOT NULL, coalesce(dead_reason, '') FROM " + SCHEMA + ".outbox ORDER BY id");
                var reasons = new ArrayList<String>();
                while (rs.next()) {
                    Assertions.assertTrue(rs.getBoolean(2), "row " + rs.getLong(1) + " is done with");
                    reasons.add(rs.getString(3));
                }
                assertEquals("", reasons.get(0));
                Assertions.assertTrue(reasons.get(1).contains("1001 bytes is over alice.outbox.max-record-bytes (1000)"), reasons.get(1));
                Assertions.assertTrue(reasons.get(3).contains("refused a payload of 1 bytes as too large"), reasons.get(3));
            }
            Thread.sleep(10);
            var keepNothing = new OutboxRelay(pool, new Outbox(SCHEMA), Map.of(), Duration.ZERO, Duration.ZERO, 1000, (topic, reason) -> {});
            assertEquals(3, keepNothing.prune(), "keep-sent 0: the three sent rows go, the two set aside stay with their payloads");
        } finally {
            pool.closeAndAwait();
            vertx.closeAndAwait();
            try (var c = TestStack.openDatabase(); var st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            }
        }
    }

    @Test
    void aRowNamesItsTopicOrTheChannelTheReleaseBeforeWroteForIt() {
        assertEquals(Optional.of(Topic.ROLLOUTS_COMPLETED), OutboxRelay.topicOf("rollouts.completed"));
        assertEquals(Optional.of(Topic.TASKS_ACCEPTED), OutboxRelay.topicOf("tasks-accepted-out"));
        assertEquals(Optional.of(Topic.TRAINING_METRICS), OutboxRelay.topicOf("training-metrics"));
        assertEquals(Optional.empty(), OutboxRelay.topicOf("rollouts-completed-v9"));
    }
}
