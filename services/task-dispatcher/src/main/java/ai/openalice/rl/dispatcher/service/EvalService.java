package ai.openalice.rl.dispatcher.service;

import ai.openalice.rl.dispatcher.repository.EvalStore;
import ai.openalice.rl.dispatcher.repository.TaskStore;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.servicekit.Sql;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Evaluation runs: K rollouts of each task at a fixed policy version (groups waiting for capacity
 * ahead of training), and their report ({@link EvalReport}).
 */
@ApplicationScoped
public class EvalService {
    @Inject
    Pool pool;

    @Inject
    RolloutRequests requests;

    @Inject
    TaskStore tasks;

    @Inject
    EvalStore store;

    /** Starts a run; the task ids must be known (the caller names the unknown ones). */
    public UUID start(List<String> taskIds, int k, long policyVersion, double alpha) {
        UUID run = UUID.randomUUID();
        Sql.transaction(pool, sql -> {
            store.create(sql, new EvalStore.Run(run, policyVersion, k, alpha));
            for (String id : taskIds) {
                int version = tasks.latestVersion(id).orElseThrow(() -> new IllegalArgumentException("unknown task " + id));
                requests.create(sql, tasks.task(id, version).orElseThrow(), policyVersion, k, RolloutRef.Mode.EVAL, run, false, null);
            }
            return null;
        });
        return run;
    }

    /** The report of a run, or empty when the run is unknown. */
    public Optional<EvalReport> report(UUID run) {
        return Sql.transaction(pool, sql -> store.run(sql, run).map(r -> EvalReport.of(r, store.attempts(sql, run))));
    }
}
