package ai.openalice.rl.servicekit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.impl.NoStackTraceThrowable;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import java.net.ServerSocket;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class SqlTest {
    @Test
    void aTransactionWithNoDatabaseToConnectToSaysTheDatabaseIsUnavailable() throws Exception {
        var vertx = Vertx.vertx();
        int port;
        try (var s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        var pool = PgBuilder.pool().connectingTo(new PgConnectOptions().setHost("127.0.0.1").setPort(port)
                .setDatabase("alice_rl").setUser("alice").setPassword("alice")).using(vertx).build();
        try {
            var e = assertThrows(DatabaseUnavailableException.class, () -> Sql.transaction(pool, sql -> sql.query("SELECT 1")));
            assertTrue(e.getMessage().contains("Connection refused"), e.getMessage());
            assertTrue(DatabaseUnavailableException.isOutage(new CompletionException(e.getCause())), "the pool's own failure, unwrapped");
            assertFalse(DatabaseUnavailableException.isOutage(new IllegalStateException("a bug")));
            // what the SQL client fails a command with on a pooled connection the outage closed (vertx-sql-client's SocketConnectionBase)
            assertTrue(DatabaseUnavailableException.isOutage(new CompletionException(
                    new NoStackTraceThrowable("Connection is not active now, current status: CLOSED"))));
            assertFalse(DatabaseUnavailableException.isOutage(new NoStackTraceThrowable("some other failure")));
        } finally {
            vertx.closeAndAwait();
        }
    }
}
