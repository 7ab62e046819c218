package ai.openalice.rl.servicekit;

import io.vertx.mutiny.sqlclient.Pool;

/**
 * The one way a retention job deletes old rows: batch after batch (a statement deletes at most
 * {@code batch} rows, so no statement holds locks or builds WAL for long), until a batch finds
 * fewer than that or {@code maxBatches} ran (the rest waits for the next run); then a plain
 * {@link Vacuum} of each table it deleted from, so the space is reused. Used by the dispatcher's
 * history, the verifier's verifications, the trainer's trajectories and every outbox.
 */
public final class Retention {
    /** No cap on the batches of one run. */
    public static final int UNBOUNDED = Integer.MAX_VALUE;

    private Retention() {}

    /** One statement: deletes (or clears) at most {@code batch} rows; returns how many. */
    @FunctionalInterface
    public interface Batch {
        int delete(int batch);
    }

    /** Runs {@code statement} batch by batch as above, vacuums {@code tables} when it deleted anything; returns how many rows. */
    public static long drain(Pool pool, int batch, int maxBatches, Batch statement, String... tables) {
        if (batch <= 0 || maxBatches <= 0) {
            throw new IllegalArgumentException("batch and maxBatches must be positive: " + batch + ", " + maxBatches);
        }
        long total = 0;
        for (int i = 0; i < maxBatches; i++) {
            int n = statement.delete(batch);
            total += n;
            if (n < batch) {
                break;
            }
        }
        if (total > 0) {
            for (String table : tables) {
                Vacuum.table(pool, table);
            }
        }
        return total;
    }
}
