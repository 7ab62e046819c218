package ai.openalice.rl.servicekit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.testkit.TestStack;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgBuilder;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgConnectOptions;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * A table a retention job keeps to a window stays its size only when the dead rows' space is
 * reused. With autovacuum off for the table (as a whole database may have it), 200 rows of 20 kB
 * written, deleted and written again: without a VACUUM between, the table holds both generations
 * (≥ 1.5× the first size); with {@link Vacuum} between, the second generation fits in the first's
 * space (within 10%).
 */
class VacuumTest {
    static final String SCHEMA = "kit_vacuum_test";

    static long cycle(Statement st, boolean vacuum, Pool pool) throws Exception {
        st.execute("DROP TABLE IF EXISTS " + SCHEMA + ".t; CREATE TABLE " + SCHEMA + ".t (id int, payload bytea) WITH (autovacuum_enabled = false,"
                + " toast.autovacuum_enabled = false)");
        // 20 kB of incompressible bytes per row: stored out of line, in the TOAST table, as trajectories are
        String insert = "INSERT INTO " + SCHEMA + ".t SELECT g, (SELECT string_agg(decode(md5(g::text || '-' || i), 'hex'), ''::bytea)"
                + " FROM generate_series(1, 1280) i) FROM generate_series(1, 200) g";
        st.execute(insert);
        long first = size(st);
        st.execute("DELETE FROM " + SCHEMA + ".t");
        if (vacuum) {
            assertTrue(Vacuum.table(pool, SCHEMA + ".t"));
        }
        st.execute(insert);
        return size(st) * 100 / first;
    }

    static long size(Statement st) throws Exception {
        var rs = st.executeQuery("SELECT pg_total_relation_size('" + SCHEMA + ".t')");
        rs.next();
        return rs.getLong(1);
    }

    @Test
    void afterAVacuumTheDeletedRowsSpaceIsReused() throws Exception {
        var vertx = Vertx.vertx();
        var options = PgConnectOptions.fromUri(System.getProperty("alice.db.reactive-url")).setUser(TestStack.dbUser())
                .setPassword(TestStack.dbPassword());
        var pool = PgBuilder.pool().connectingTo(options).using(vertx).build();
        try (var c = TestStack.openDatabase(); var st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE; CREATE SCHEMA " + SCHEMA);
            long without = cycle(st, false, pool);
            long with = cycle(st, true, pool);
            assertTrue(without >= 150, "without a vacuum both generations are kept: " + without + "% of the first size");
            assertTrue(with <= 110, "with one, the second generation reuses the first's space: " + with + "% of the first size");
        } finally {
            try (var c = TestStack.openDatabase(); var st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            }
            pool.closeAndAwait();
            vertx.closeAndAwait();
        }
    }

    @Test
    void onlyASchemaQualifiedNameFromTheCodeIsTaken() {
        assertThrows(IllegalArgumentException.class, () -> Vacuum.table(null, "outbox; DROP TABLE x"));
        assertThrows(IllegalArgumentException.class, () -> Vacuum.table(null, "outbox"));
    }
}
