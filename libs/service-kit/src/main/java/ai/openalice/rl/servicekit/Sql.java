package ai.openalice.rl.servicekit;

import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * Imperative transactions over the reactive pool, for the scheduler's loops (it runs on worker
 * threads, never on the event loop): every statement awaited, commit or roll back as one.
 */
public final class Sql {
    static final Duration DB = Duration.ofSeconds(30);

    private final SqlConnection conn;

    private Sql(SqlConnection conn) {
        this.conn = conn;
    }

    /** Runs {@code work} in one transaction; {@link DatabaseUnavailableException} when no connection can be had. */
    public static <T> T transaction(Pool pool, Function<Sql, T> work) {
        SqlConnection c;
        try {
            c = pool.getConnection().await().atMost(DB);
        } catch (RuntimeException e) {
            throw new DatabaseUnavailableException(e);
        }
        try {
            var tx = c.begin().await().atMost(DB);
            try {
                T result = work.apply(new Sql(c));
                tx.commit().await().atMost(DB);
                return result;
            } catch (RuntimeException e) {
                try {
                    tx.rollback().await().atMost(DB);
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        } finally {
            c.close().await().atMost(DB);
        }
    }

    public RowSet<Row> query(String sql, Object... args) {
        return conn.preparedQuery(sql).execute(Tuple.from(args)).await().atMost(DB);
    }

    public Optional<Row> one(String sql, Object... args) {
        var rows = query(sql, args);
        return rows.iterator().hasNext() ? Optional.of(rows.iterator().next()) : Optional.empty();
    }
}
