package ai.openalice.rl.servicekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Waits;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Table gauges on the real database: every table of the schema gets its bytes and rows; a reading
 * is reused until it is older than the refresh period, then taken again.
 */
class TableSizesTest {
    static final String SCHEMA = "kit_table_sizes_test";

    @Test
    void gaugesEveryTableAndReadsAtMostOncePerPeriod() throws Exception {
        try (var c = TestStack.openDatabase(); var st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE; CREATE SCHEMA " + SCHEMA + "; CREATE TABLE " + SCHEMA
                    + ".samples (id bigint PRIMARY KEY, body text); CREATE TABLE " + SCHEMA + ".empty (id bigint)");
            st.execute("INSERT INTO " + SCHEMA + ".samples SELECT i, repeat('x', 1000) FROM generate_series(1, 500) i");
            st.execute("ANALYZE " + SCHEMA + ".samples");
        }
        var vertx = Vertx.vertx();
        var options = PgConnectOptions.fromUri(System.getProperty("alice.db.reactive-url")).setUser(TestStack.dbUser())
                .setPassword(TestStack.dbPassword());
        var pool = PgBuilder.pool().connectingTo(options).using(vertx).build();
        try {
            var clock = new AtomicLong(0);
            var sizes = new TableSizes(pool, SCHEMA, Duration.ofSeconds(30), clock::get);
            var registry = new SimpleMeterRegistry();
            sizes.register(registry);
            double bytes = registry.get("alice_table_bytes").tag("table", "samples").gauge().value();
            // 500 rows of ~1 kB: at least 500,000 bytes of heap, whatever the page overhead
            assertTrue(bytes >= 500_000, "bytes: " + bytes);
            assertEquals(0.0, registry.get("alice_table_rows").tag("table", "empty").gauge().value());
            try (var c = TestStack.openDatabase(); var st = c.createStatement()) {
                st.execute("INSERT INTO " + SCHEMA + ".empty SELECT i FROM generate_series(1, 1000) i");
                st.execute("ANALYZE " + SCHEMA + ".empty");
            }
            clock.set(Duration.ofSeconds(29).toNanos());
            assertEquals(0.0, registry.get("alice_table_rows").tag("table", "empty").gauge().value(), "within the period: the last reading");
            clock.set(Duration.ofSeconds(31).toNanos());
            assertEquals(1000.0, registry.get("alice_table_rows").tag("table", "empty").gauge().value(), "past it: read again");
        } finally {
            pool.closeAndAwait();
            vertx.closeAndAwait();
        }
    }

    @Test
    void aDatabaseAwayAtRegistrationDoesNotFailTheCallerAndTheGaugesComeLater() throws Exception {
        var attempts = new AtomicInteger();
        var sizes = new TableSizes(() -> {
            if (attempts.incrementAndGet() <= 2) {
                throw new IllegalStateException("Connection refused");
            }
            return Map.of("outbox", new TableSizes.Size(8192, 3));
        }, "s", Duration.ZERO, System::nanoTime);
        var registry = new SimpleMeterRegistry();
        sizes.register(registry, Duration.ofMillis(20)); // the old code threw here, failing the service's first consumer call
        Waits.until("the table gauge", Duration.ofSeconds(30), () -> registry.find("alice_table_bytes").tag("table", "outbox").gauge() != null);
        assertEquals(8192.0, registry.get("alice_table_bytes").tag("table", "outbox").gauge().value());
        assertTrue(attempts.get() >= 3);
    }
}
