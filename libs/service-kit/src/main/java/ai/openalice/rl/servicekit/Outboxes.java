package ai.openalice.rl.servicekit;

import ai.openalice.rl.events.Topic;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;

/**
 * Where a service gets its outbox relay: one way for every service, with the shared settings
 * ({@link OutboxConfig}), gauges of the table ({@code alice_outbox_rows{schema,state}}) and of every
 * table of the service's schema ({@link TableSizes}).
 */
@ApplicationScoped
public class Outboxes {
    @Inject
    Pool pool;

    @Inject
    OutboxConfig config;

    @Inject
    MeterRegistry metrics;

    /** The relay of {@code outbox} to the emitters of the topics the service writes. */
    public OutboxRelay relay(Outbox outbox, Map<Topic, MutinyEmitter<byte[]>> emitters) {
        for (String state : new String[] {"unsent", "sent", "dead"}) {
            String where = switch (state) {
                case "unsent" -> "sent_at IS NULL";
                case "sent" -> "sent_at IS NOT NULL AND dead_reason IS NULL";
                default -> "dead_reason IS NOT NULL"; // set aside: too large for Kafka (OutboxRelay)
            };
            var reading = new Throttled<>(() -> count(outbox, where), Duration.ofSeconds(30), System::nanoTime); // one query per 30 s per state
            Gauge.builder("alice_outbox_rows", reading, Throttled::get).tag("schema", outbox.schema()).tag("state", state)
                    .description("rows of the service's outbox table").register(metrics);
        }
        new TableSizes(pool, outbox.schema(), Duration.ofSeconds(30), System::nanoTime).register(metrics);
        return new OutboxRelay(pool, outbox, emitters, config.keepSent(), config.pruneEvery(), config.maxRecordBytes(),
                (topic, reason) -> metrics.counter("alice_outbox_dead_total", "schema", outbox.schema(), "topic", topic).increment());
    }

    private double count(Outbox outbox, String where) {
        try {
            return pool.query("SELECT count(*) FROM " + outbox.schema() + ".outbox WHERE " + where).execute().await().atMost(Duration.ofSeconds(5))
                    .iterator().next().getLong(0);
        } catch (RuntimeException e) {
            return Double.NaN; // the database is away: no figure rather than a wrong one
        }
    }
}
