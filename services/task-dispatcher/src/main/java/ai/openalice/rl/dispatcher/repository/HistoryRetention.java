package ai.openalice.rl.dispatcher.repository;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.servicekit.Retention;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.jboss.logging.Logger;

/**
 * The dispatcher's history by age ({@code dispatcher.keep-history}, P30D): training groups settled
 * (finished, failed or dropped) that long ago go with their rollouts, and solve history rows as
 * old; hourly, {@value #BATCH} groups or rows per statement. Tasks, their state and curriculum
 * stay (they are the tasks), and so do evaluation runs and their groups (their reports). Counted in
 * {@code dispatcher_history_pruned_total{table}}.
 */
@ApplicationScoped
public class HistoryRetention {
    private static final Logger LOG = Logger.getLogger(HistoryRetention.class);
    static final int BATCH = 1000;
    static final Duration DB = Duration.ofSeconds(60);

    @Inject
    Pool pool;

    @Inject
    DispatcherConfig config;

    @Inject
    MeterRegistry metrics;

    /** Deletes up to {@code batch} settled training groups older than {@code keep}, their rollouts with them; returns how many groups. */
    public int pruneGroups(Duration keep, int batch) {
        return pool.preparedQuery("WITH old AS (SELECT group_id FROM dispatcher.groups WHERE state IN ('finished', 'failed', 'dropped')"
                + " AND eval_run_id IS NULL AND finished_at < now() - make_interval(secs => $1) LIMIT $2),"
                + " members AS (DELETE FROM dispatcher.rollouts WHERE group_id IN (SELECT group_id FROM old))"
                + " DELETE FROM dispatcher.groups WHERE group_id IN (SELECT group_id FROM old)")
                .execute(Tuple.of((double) keep.toSeconds(), batch)).await().atMost(DB).rowCount();
    }

    /** Deletes up to {@code batch} solve history rows older than {@code keep}; returns how many. */
    public int pruneSolveHistory(Duration keep, int batch) {
        return pool.preparedQuery("DELETE FROM dispatcher.solve_history WHERE group_id IN (SELECT group_id FROM dispatcher.solve_history"
                + " WHERE at < now() - make_interval(secs => $1) LIMIT $2)")
                .execute(Tuple.of((double) keep.toSeconds(), batch)).await().atMost(DB).rowCount();
    }

    @Scheduled(every = "${dispatcher.prune-every}", delayed = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void prune() {
        try {
            long groups = Retention.drain(pool, BATCH, Retention.UNBOUNDED, b -> pruneGroups(config.keepHistory(), b), "dispatcher.rollouts",
                    "dispatcher.groups");
            long history = Retention.drain(pool, BATCH, Retention.UNBOUNDED, b -> pruneSolveHistory(config.keepHistory(), b),
                    "dispatcher.solve_history");
            metrics.counter("dispatcher_history_pruned_total", "table", "groups").increment(groups);
            metrics.counter("dispatcher_history_pruned_total", "table", "solve_history").increment(history);
            if (groups + history > 0) {
                LOG.infof("deleted %d settled group(s) with their rollouts and %d solve history row(s) older than %s", groups, history,
                        config.keepHistory());
            }
        } catch (RuntimeException e) {
            LOG.warnf("history retention: %s; trying again at the next prune (dispatcher.prune-every)", e.getMessage());
        }
    }
}
