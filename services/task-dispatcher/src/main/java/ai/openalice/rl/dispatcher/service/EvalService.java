package ai.openalice.rl.dispatcher.service;

import ai.openalice.rl.core.eval.PassAtK;
import ai.openalice.rl.core.eval.Selection;
import ai.openalice.rl.dispatcher.repository.GroupStore;
import ai.openalice.rl.servicekit.Sql;
import ai.openalice.rl.dispatcher.repository.TaskStore;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.RolloutRequested;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Evaluation runs: K rollouts of each task at a fixed policy version (groups waiting for capacity
 * ahead of training), and their report: pass@1 (the mean), pass@k (unbiased estimator),
 * best-of-K under the execution-free score (the rubric PRM, s_prm), under the execution-based
 * score (the hidden tests — an oracle upper bound) and under the hybrid α·exec + (1−α)·s_prm.
 */
@ApplicationScoped
public class EvalService {
    @Inject
    Pool pool;

    @Inject
    GroupStore groups;

    @Inject
    TaskStore tasks;

    /** Starts a run; the task ids must be known (the caller names the unknown ones). */
    public UUID start(List<String> taskIds, int k, long policyVersion, double alpha) {
        UUID run = UUID.randomUUID();
        Sql.transaction(pool, sql -> {
            sql.query("INSERT INTO dispatcher.evals (eval_run_id, policy_version, k, alpha) VALUES ($1, $2, $3, $4)", run, policyVersion, k, alpha);
            for (String id : taskIds) {
                int version = tasks.latestVersion(id).orElseThrow(() -> new IllegalArgumentException("unknown task " + id));
                groups.create(sql, tasks.task(id, version).orElseThrow(), policyVersion, k, RolloutRef.Mode.EVAL, run, false, null);
            }
            return null;
        });
        return run;
    }

    /** The report of a run, or empty when the run is unknown. */
    public Optional<Map<String, Object>> report(UUID run) {
        var head = pool.preparedQuery("SELECT * FROM dispatcher.evals WHERE eval_run_id = $1").execute(io.vertx.mutiny.sqlclient.Tuple.of(run))
                .await().atMost(java.time.Duration.ofSeconds(30));
        if (!head.iterator().hasNext()) {
            return Optional.empty();
        }
        Row e = head.iterator().next();
        int k = e.getInteger("k");
        double alpha = e.getDouble("alpha");
        var byTask = new TreeMap<String, List<Row>>();
        int live = 0;
        int failed = 0;
        for (Row r : pool.preparedQuery("""
                SELECT g.task_id, r.* FROM dispatcher.groups g JOIN dispatcher.rollouts r ON r.group_id = g.group_id
                 WHERE g.eval_run_id = $1 AND r.state NOT IN ('retried')""").execute(io.vertx.mutiny.sqlclient.Tuple.of(run))
                .await().atMost(java.time.Duration.ofSeconds(30))) {
            byTask.computeIfAbsent(r.getString("task_id"), x -> new ArrayList<>()).add(r);
            String s = r.getString("state");
            live += s.equals("scored") || s.equals("failed") || s.equals("dropped") ? 0 : 1;
            failed += s.equals("failed") ? 1 : 0;
        }
        var perTask = new ArrayList<Map<String, Object>>();
        double sum1 = 0, sumK = 0, sumPrm = 0, sumExec = 0, sumHybrid = 0;
        int counted = 0;
        for (var entry : byTask.entrySet()) {
            var scored = entry.getValue().stream().filter(r -> r.getString("state").equals("scored") && !r.getBoolean("masked")).toList();
            var row = new LinkedHashMap<String, Object>();
            row.put("taskId", entry.getKey());
            row.put("n", scored.size());
            if (scored.isEmpty()) {
                perTask.add(row);
                continue;
            }
            int c = (int) scored.stream().filter(r -> r.getInteger("r_exec") == 1).count();
            var candidates = scored.stream().map(r -> new Selection.Candidate(r.getUUID("rollout_id").toString(), r.getInteger("r_exec"),
                    r.getDouble("s_prm") == null ? 0 : r.getDouble("s_prm"), r.getLong("tokens") == null ? 0 : r.getLong("tokens"))).toList();
            double p1 = (double) c / scored.size();
            double pk = PassAtK.estimate(scored.size(), c, Math.min(k, scored.size()));
            double prm = Selection.bestByExecutionFree(candidates).executionScore();
            double exec = Selection.bestByExecution(candidates).executionScore();
            double hybrid = Selection.bestHybrid(candidates, alpha).executionScore();
            row.put("c", c);
            row.put("pass@1", p1);
            row.put("pass@k", pk);
            row.put("bestOfK.prm", prm);
            row.put("bestOfK.exec", exec);
            row.put("bestOfK.hybrid", hybrid);
            perTask.add(row);
            sum1 += p1;
            sumK += pk;
            sumPrm += prm;
            sumExec += exec;
            sumHybrid += hybrid;
            counted++;
        }
        var out = new LinkedHashMap<String, Object>();
        out.put("evalRunId", run.toString());
        out.put("policyVersion", e.getLong("policy_version"));
        out.put("k", k);
        out.put("alpha", alpha);
        out.put("state", live == 0 ? "done" : "running");
        out.put("rolloutsLive", live);
        out.put("rolloutsFailed", failed);
        var overall = new LinkedHashMap<String, Object>();
        overall.put("tasks", counted);
        if (counted > 0) {
            overall.put("pass@1", sum1 / counted);
            overall.put("pass@k", sumK / counted);
            overall.put("bestOfK.prm", sumPrm / counted);
            overall.put("bestOfK.exec", sumExec / counted);
            overall.put("bestOfK.hybrid", sumHybrid / counted);
        }
        out.put("overall", overall);
        out.put("tasks", perTask);
        return Optional.of(out);
    }
}
