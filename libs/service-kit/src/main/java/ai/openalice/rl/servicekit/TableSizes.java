package ai.openalice.rl.servicekit;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * How much a service keeps: per table of its schema, {@code alice_table_bytes{schema,table}}
 * (table, indexes and TOAST: {@code pg_total_relation_size}) and {@code alice_table_rows}
 * (PostgreSQL's estimate, {@code pg_class.reltuples}, which autovacuum's ANALYZE keeps as a table
 * grows: no table scan; 0 for a table never analysed). Read at most once per
 * {@code refresh} whatever the scrape rate, so that watching storage never loads the database.
 */
public final class TableSizes {
    /** A table's size: bytes on disk and estimated live rows. */
    public record Size(long bytes, long rows) {}

    private final Pool pool;
    private final String schema;
    private final Throttled<Map<String, Size>> reading;

    public TableSizes(Pool pool, String schema, Duration refresh, LongSupplier nanoClock) {
        this.pool = pool;
        this.schema = schema;
        this.reading = new Throttled<>(this::read, refresh, nanoClock);
    }

    /** With another reading of the sizes (tests). */
    TableSizes(Supplier<Map<String, Size>> read, String schema, Duration refresh, LongSupplier nanoClock) {
        this.pool = null;
        this.schema = schema;
        this.reading = new Throttled<>(read, refresh, nanoClock);
    }

    /**
     * Registers both gauges for every table the schema holds (call after its migrations). With the
     * database away — a service's first event can arrive during an outage — the tables are listed
     * again every 30 s in the background until they can be: watching storage never fails the caller.
     */
    public void register(MeterRegistry registry) {
        register(registry, Duration.ofSeconds(30));
    }

    void register(MeterRegistry registry, Duration retry) {
        try {
            registerNow(registry);
        } catch (RuntimeException e) {
            Thread.ofVirtual().name("table-sizes-" + schema).start(() -> {
                while (true) {
                    try {
                        Thread.sleep(retry);
                        registerNow(registry);
                        return;
                    } catch (InterruptedException stop) {
                        return;
                    } catch (RuntimeException again) {
                        // still away: next period
                    }
                }
            });
        }
    }

    private void registerNow(MeterRegistry registry) {
        for (String table : sizes().keySet()) {
            Gauge.builder("alice_table_bytes", () -> value(table, true)).tag("schema", schema).tag("table", table)
                    .description("bytes the table takes with its indexes and TOAST").baseUnit("bytes").register(registry);
            Gauge.builder("alice_table_rows", () -> value(table, false)).tag("schema", schema).tag("table", table)
                    .description("live rows of the table (PostgreSQL's estimate)").register(registry);
        }
    }

    private double value(String table, boolean bytes) {
        try {
            Size s = sizes().get(table);
            return s == null ? Double.NaN : bytes ? s.bytes() : s.rows();
        } catch (RuntimeException e) {
            return Double.NaN; // the database is away: no figure rather than a wrong one
        }
    }

    /** The schema's tables and their sizes, read again when the last reading is older than {@code refresh}. */
    public Map<String, Size> sizes() {
        return reading.get();
    }

    private Map<String, Size> read() {
        var out = new HashMap<String, Size>();
        pool.preparedQuery("""
                SELECT c.relname, pg_total_relation_size(c.oid) AS bytes, greatest(c.reltuples, 0)::bigint AS rows
                  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')""").execute(Tuple.of(schema)).await().atMost(Duration.ofSeconds(10))
                .forEach(r -> out.put(r.getString("relname"), new Size(r.getLong("bytes"), r.getLong("rows"))));
        return Map.copyOf(out);
    }
}
