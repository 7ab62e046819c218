package ai.openalice.rl.servicekit;

import ai.openalice.rl.retry.Backoff;
import io.micrometer.core.instrument.Metrics;
import io.quarkus.runtime.ShutdownEvent;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.sqlclient.ClosedConnectionException;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.time.Duration;
import org.jboss.logging.Logger;

/**
 * {@link WaitsOutDatabaseOutages}: a failure that is a database outage (see {@link #outage}) makes
 * the call wait and go again; any other
 * failure, or one while the service shuts down, passes through as before. Each wait is counted in
 * {@code alice_database_outage_waits_total{method}}; the first of an outage is logged.
 */
@WaitsOutDatabaseOutages
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_AFTER + 100)
public class DatabaseOutageWait {
    private static final Logger LOG = Logger.getLogger(DatabaseOutageWait.class);
    static final long FIRST_PAUSE_MS = 500;
    static final long MAX_PAUSE_MS = 10_000;
    static volatile boolean stopping;

    @Inject
    Instance<Pool> pool;

    @AroundInvoke
    Object around(InvocationContext ctx) throws Exception {
        var backoff = Backoff.of(Duration.ofMillis(FIRST_PAUSE_MS), Duration.ofMillis(MAX_PAUSE_MS));
        String method = ctx.getMethod().getDeclaringClass().getSimpleName() + "." + ctx.getMethod().getName();
        boolean logged = false;
        while (true) {
            try {
                Object result = ctx.proceed();
                if (logged) {
                    LOG.infof("%s: the database is back; going on", method);
                }
                return result;
            } catch (Exception e) {
                if (stopping || !outage(e)) {
                    throw e;
                }
                if (!logged) {
                    LOG.warnf("%s: the database is unavailable (%s); the event waits, unacknowledged, until it is back", method, e.getMessage());
                    logged = true;
                }
                Metrics.counter("alice_database_outage_waits_total", "method", method).increment();
                backoff.sleep(); // full jitter: the consumers that met the outage together do not come back together
            }
        }
    }

    /**
     * Whether {@code e} is the database being away: the kit's own wrapper or the SQL client's closed
     * connection; a bare connection refusal counts only when the database does not answer now
     * either (it may have come from a sandbox, the policy server or the Kubernetes API, which are
     * not this interceptor's business).
     */
    boolean outage(Exception e) {
        if (!DatabaseUnavailableException.isOutage(e)) {
            return false;
        }
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof DatabaseUnavailableException || c instanceof ClosedConnectionException) {
                return true;
            }
        }
        return !databaseAnswers();
    }

    private boolean databaseAnswers() {
        if (pool == null || !pool.isResolvable()) {
            return true;
        }
        try {
            pool.get().query("SELECT 1").execute().await().atMost(Duration.ofSeconds(5));
            return true;
        } catch (RuntimeException down) {
            return false;
        }
    }

    /** Ends every wait at shutdown (the event then stays unacknowledged for the next consumer). */
    @ApplicationScoped
    public static class Shutdown {
        void onStop(@Observes ShutdownEvent e) {
            stopping = true;
        }
    }
}
