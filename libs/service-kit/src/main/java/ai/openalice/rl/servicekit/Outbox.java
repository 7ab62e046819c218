package ai.openalice.rl.servicekit;

import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;

/**
 * The transactional outbox of one service (its schema's {@code outbox} table): an event is queued
 * in the transaction that writes the state it announces, under its topic's name and key, both
 * taken from the event; {@link OutboxRelay} sends it. Never "persist, then send and hope".
 */
public final class Outbox {
    private final String schema;

    public Outbox(String schema) {
        this.schema = schema;
    }

    public String schema() {
        return schema;
    }

    private String insert() {
        return "INSERT INTO " + schema + ".outbox (topic, event_key, payload) VALUES ($1, $2, $3)";
    }

    /** Queues {@code event} in the transaction of {@code sql}. */
    public void enqueue(Sql sql, Envelope<?> event) {
        sql.query(insert(), event.topic().topicName(), event.key(), Buffer.buffer(EventCodec.encode(event)));
    }

    /** Queues {@code event} on {@code conn}, inside the caller's transaction. */
    public Uni<Void> enqueue(SqlConnection conn, Envelope<?> event) {
        return conn.preparedQuery(insert()).execute(Tuple.of(event.topic().topicName(), event.key(), Buffer.buffer(EventCodec.encode(event))))
                .replaceWithVoid();
    }
}
