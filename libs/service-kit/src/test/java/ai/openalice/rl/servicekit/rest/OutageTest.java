package ai.openalice.rl.servicekit.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.servicekit.DatabaseUnavailableException;
import com.fasterxml.jackson.core.JsonParseException;
import io.smallrye.mutiny.TimeoutException;
import io.vertx.pgclient.PgException;
import java.net.ConnectException;
import java.net.SocketException;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class OutageTest {
    @Test
    void aDatabaseOutageIsA503ToRetryAndAnythingElseA500() {
        var refused = new ConnectException("Connection refused");
        var fromSql = new Outage.Unavailable().toResponse(new DatabaseUnavailableException(new CompletionException(refused)));
        assertEquals(503, fromSql.getStatus());
        assertEquals(String.valueOf(Outage.RETRY_AFTER_S), fromSql.getHeaderString("Retry-After"));
        assertEquals("application/problem+json", fromSql.getMediaType().toString());
        assertEquals("Database unavailable", ((Map<?, ?>) fromSql.getEntity()).get("title"));

        assertEquals(503, new Outage.Completion().toResponse(new CompletionException(refused)).getStatus(), "a query's own wait, not through Sql");
        var bug = new Outage.Completion().toResponse(new CompletionException(new IllegalStateException("a bug")));
        assertEquals(500, bug.getStatus());
        assertEquals(null, bug.getHeaderString("Retry-After"));
    }

    @Test
    void aConnectionLostUnderAQueryIsAnOutageToo() {
        // a pooled connection meets the outage first: the socket is reset or closed under a query, or
        // PostgreSQL says it is shutting down (SQLSTATE 57P01, PostgreSQL's errcodes appendix)
        var reset = new CompletionException(new SocketException("Connection reset"));
        assertEquals(503, new Outage.Completion().toResponse(reset).getStatus());
        var shutdown = new PgException("terminating connection due to administrator command", "FATAL", "57P01", null);
        assertEquals(503, new Outage.Postgres().toResponse(shutdown).getStatus());
        assertEquals(503, new Outage.Postgres().toResponse(new PgException("too many clients", "FATAL", "53300", null)).getStatus());
        assertEquals(503, new Outage.Timeout().toResponse(new TimeoutException()).getStatus());

        var duplicate = new PgException("duplicate key value violates unique constraint", "ERROR", "23505", null);
        assertEquals(500, new Outage.Postgres().toResponse(duplicate).getStatus(), "a data error is not an outage");
        var json = new CompletionException(new JsonParseException(null, "bad json"));
        assertEquals(500, new Outage.Completion().toResponse(json).getStatus(), "an IOException that is not the connection's");
    }
}
