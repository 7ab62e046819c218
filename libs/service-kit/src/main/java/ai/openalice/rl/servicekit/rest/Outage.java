package ai.openalice.rl.servicekit.rest;

import ai.openalice.rl.servicekit.DatabaseUnavailableException;
import io.smallrye.mutiny.TimeoutException;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.jboss.logging.Logger;

/**
 * In every service with a REST API: a database outage answers 503 with {@code Retry-After}
 * (problem details), so a caller retries instead of taking the request as failed (nothing was
 * stored, it can be sent again as it was); any other failure a 500 problem, its cause in the log.
 * The kit's {@code META-INF/beans.xml} has Quarkus index this jar, so the mappers are found.
 */
public final class Outage {
    private static final Logger LOG = Logger.getLogger(Outage.class);
    static final int RETRY_AFTER_S = 5;

    private Outage() {}

    static Response of(Throwable e) {
        if (DatabaseUnavailableException.isOutage(e)) {
            LOG.warnf("answering 503: %s", e.getMessage());
            return Response.fromResponse(Problems.of(503, "Database unavailable",
                    "the service cannot reach its database; retry in " + RETRY_AFTER_S + " s", Map.of())).header("Retry-After", RETRY_AFTER_S)
                    .build();
        }
        LOG.error("request failed", e);
        return Problems.of(500, "Internal error", "the request failed inside the service; its log has the cause");
    }

    @Provider
    public static class Unavailable implements ExceptionMapper<DatabaseUnavailableException> {
        @Override
        public Response toResponse(DatabaseUnavailableException e) {
            return of(e);
        }
    }

    /** What a blocking wait on the reactive client throws, wrapping the connection's failure. */
    @Provider
    public static class Completion implements ExceptionMapper<CompletionException> {
        @Override
        public Response toResponse(CompletionException e) {
            return of(e);
        }
    }

    @Provider
    public static class Closed implements ExceptionMapper<ClosedConnectionException> {
        @Override
        public Response toResponse(ClosedConnectionException e) {
            return of(e);
        }
    }

    /** PostgreSQL's own refusal, e.g. 57P01 when it shuts down under an open connection. */
    @Provider
    public static class Postgres implements ExceptionMapper<PgException> {
        @Override
        public Response toResponse(PgException e) {
            return of(e);
        }
    }

    /** A query's wait that ran out ({@code await().atMost}): the database did not answer. */
    @Provider
    public static class Timeout implements ExceptionMapper<TimeoutException> {
        @Override
        public Response toResponse(TimeoutException e) {
            return of(e);
        }
    }
}
