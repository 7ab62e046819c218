package ai.openalice.rl.servicekit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.testkit.TestStack;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The outbox on the real database: what a row holds, and which sent rows retention deletes. */
class OutboxTest {
    static final String SCHEMA = "kit_outbox_test";

    @Test
    void aQueuedRowNamesItsTopicAndKeyAndSentRowsGoOnceOlderThanTheWindowInBatches() throws Exception {
        try (var c = TestStack.openDatabase(); var st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE; CREATE SCHEMA " + SCHEMA + "; CREATE TABLE " + SCHEMA
                    + ".outbox (id bigserial PRIMARY KEY, topic text NOT NULL, event_key text NOT NULL, payload bytea NOT NULL,"
                    + " created_at timestamptz NOT NULL DEFAULT now(), sent_at timestamptz)");
        }
        var vertx = io.vertx.mutiny.core.Vertx.vertx();
        var options = io.vertx.pgclient.PgConnectOptions.fromUri(System.getProperty("alice.db.reactive-url")).setUser(TestStack.dbUser())
                .setPassword(TestStack.dbPassword());
        var pool = io.vertx.mutiny.pgclient.PgBuilder.pool().connectingTo(options).using(vertx).build();
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
                    assertEquals(event, ((ai.openalice.rl.events.EventCodec.Decoded.Ok<?>) ai.openalice.rl.events.EventCodec.decode(Topic.CHECKPOINTS_PUBLISHED,
                            rs.getBytes(3))).envelope());
                }
                st.execute("DELETE FROM " + SCHEMA + ".outbox WHERE id = (SELECT max(id) FROM " + SCHEMA + ".outbox)");
                // 2,500 rows sent two days ago, 2 sent an hour ago, and the unsent one above
                st.execute("INSERT INTO " + SCHEMA + ".outbox (topic, event_key, payload, sent_at) SELECT 'training.metrics', 'trainer', '\\x00',"
                        + " now() - interval '2 days' FROM generate_series(1, 2500)");
                st.execute("INSERT INTO " + SCHEMA + ".outbox (topic, event_key, payload, sent_at) SELECT 'training.metrics', 'trainer', '\\x00',"
                        + " now() - interval '1 hour' FROM generate_series(1, 2)");
            }
            var relay = new OutboxRelay(pool, outbox, Map.of(), Duration.ofDays(1), Duration.ofMinutes(1));
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

    @Test
    void aRowNamesItsTopicOrTheChannelTheReleaseBeforeWroteForIt() {
        assertEquals(Optional.of(Topic.ROLLOUTS_COMPLETED), OutboxRelay.topicOf("rollouts.completed"));
        assertEquals(Optional.of(Topic.TASKS_ACCEPTED), OutboxRelay.topicOf("tasks-accepted-out"));
        assertEquals(Optional.of(Topic.TRAINING_METRICS), OutboxRelay.topicOf("training-metrics"));
        assertEquals(Optional.empty(), OutboxRelay.topicOf("rollouts-completed-v9"));
    }
}
