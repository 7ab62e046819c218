package ai.openalice.rl.servicekit;

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

    /** Whether {@code t} or one of its causes says the database could not be reached. */
    public static boolean isOutage(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof DatabaseUnavailableException || c instanceof java.net.ConnectException
                    || c instanceof io.vertx.sqlclient.ClosedConnectionException) {
                return true;
            }
        }
        return false;
    }
}
