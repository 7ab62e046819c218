package ai.openalice.rl.servicekit.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.servicekit.DatabaseUnavailableException;
import java.net.ConnectException;
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
}
