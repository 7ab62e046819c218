package ai.openalice.rl.servicekit;

import io.smallrye.mutiny.TimeoutException;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;

/**
 * No connection to the database could be had (refused, timed out, authentication failed): the
 * service is up but cannot serve, and a REST caller should be told to retry (503), not that the
 * service failed (500).
 */
public final class DatabaseUnavailableException extends RuntimeException {
    public DatabaseUnavailableException(Throwable cause) {
        super("the database is unavailable: " + rootMessage(cause), cause);
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }

    /**
     * Whether {@code t} or one of its causes says the database could not be reached or the
     * connection to it was lost: refused, reset or closed under a query (a pooled connection meets
     * the outage first this way, or is refused as closed), a wait that timed out, or PostgreSQL's own word that it is
     * going away or not taking connections (SQLSTATE class 08, 57P01-57P03, 53300).
     */
    public static boolean isOutage(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof DatabaseUnavailableException || c instanceof SocketException
                    || c instanceof ClosedChannelException || c instanceof ClosedConnectionException
                    || c instanceof TimeoutException || c.getClass().getName().equals("io.netty.channel.unix.Errors$NativeIoException")
                    || c instanceof PgException pg && connectionLost(pg.getSqlState()) || notActive(c)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The SQL client's refusal of a command on a pooled connection that the outage already closed
     * ("Connection is not active now, current status: CLOSED", a Vert.x throwable without a type of
     * its own): under load, a request can meet the closed connection before the pool has noticed.
     */
    private static boolean notActive(Throwable c) {
        return c.getClass().getName().startsWith("io.vertx.") && c.getMessage() != null
                && c.getMessage().startsWith("Connection is not active now");
    }

    static boolean connectionLost(String sqlState) {
        return sqlState != null && (sqlState.startsWith("08") || sqlState.equals("57P01") || sqlState.equals("57P02")
                || sqlState.equals("57P03") || sqlState.equals("53300"));
    }
}
