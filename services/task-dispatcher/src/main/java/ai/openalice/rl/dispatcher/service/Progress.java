package ai.openalice.rl.dispatcher.service;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.dispatcher.repository.GroupStore;
import ai.openalice.rl.servicekit.Sql;
import ai.openalice.rl.dispatcher.repository.TaskStore;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.RolloutRequested;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.VerificationCompleted;
import ai.openalice.rl.events.VerificationStatus;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * The downstream events drive each rollout's state; infrastructure failures (of the episode or of
 * the verification) are retried, never counted against the policy. When the last member of a
 * group is settled the group is finished: its solve rate goes to the task's history and to the
 * curriculum, its lag to the staleness histogram. New checkpoints advance the policy version and
 * drop (or refresh) training groups that fell more than {@code max-staleness} versions behind.
 */
@ApplicationScoped
public class Progress {
    private static final Logger LOG = Logger.getLogger(Progress.class);

    @Inject
    Pool pool;

    @Inject
    DispatcherConfig config;

    @Inject
    GroupStore groups;

    @Inject
    TaskStore tasks;

    @Inject
    MeterRegistry metrics;

    public void completed(RolloutCompleted e) {
        Sql.transaction(pool, sql -> {
            if (e.termination() == Termination.INFRA_ERROR) {
                String why = "infra_error in the episode" + (e.error() == null ? "" : ": " + e.error().kind() + ": " + e.error().message());
                retried(sql, e.rolloutId(), why);
            } else {
                count(groups.advance(sql, e.rolloutId(), "completed", List.of("requested"), Instant.now().plus(config.scoreDeadline())).isPresent());
            }
            return null;
        });
    }

    public void verified(VerificationCompleted e) {
        Sql.transaction(pool, sql -> {
            if (e.status() == VerificationStatus.INFRA_ERROR) {
                retried(sql, e.rolloutId(), "infra_error in the verification: " + e.error());
            } else {
                count(groups.advance(sql, e.rolloutId(), "verified", List.of("requested", "completed"), Instant.now().plus(config.scoreDeadline()))
                        .isPresent());
            }
            return null;
        });
    }

    public void scored(RewardScored e) {
        Sql.transaction(pool, sql -> {
            boolean infra = e.masked() && (e.termination() == Termination.INFRA_ERROR || String.valueOf(e.maskReason()).contains("infra_error"));
            if (infra) {
                retried(sql, e.rolloutId(), "masked by rubric-prm: " + e.maskReason());
                return null;
            }
            boolean truncated = e.termination() == Termination.MAX_STEPS || e.termination() == Termination.MAX_CONTEXT
                    || e.termination() == Termination.TIMEOUT;
            var row = groups.score(sql, e.rolloutId(), e.masked(), truncated, e.rExec(), e.reward(), e.sPrm(), 0);
            count(row.isPresent());
            row.ifPresent(r -> finish(sql, r.getUUID("group_id")));
            return null;
        });
    }

    private void retried(Sql sql, UUID rollout, String why) {
        var group = sql.one("SELECT group_id FROM dispatcher.rollouts WHERE rollout_id = $1", rollout);
        if (groups.retry(sql, rollout, why, tasks)) {
            metrics.counter("dispatcher_rollouts_retried_total", "reason", "infra").increment();
            LOG.warnf("rollout %s: %s; re-requested (or failed when out of attempts)", rollout, why);
            group.ifPresent(g -> finish(sql, g.getUUID("group_id")));
        }
    }

    private void count(boolean known) {
        if (!known) {
            metrics.counter("dispatcher_events_ignored_total").increment();
        }
    }

    /** Settles a group whose members are all done: solve history, curriculum, staleness. */
    public void finish(Sql sql, UUID group) {
        var done = groups.finishIfDone(sql, group);
        if (done.isEmpty()) {
            return;
        }
        Row g = done.get();
        metrics.counter("dispatcher_groups_finished_total", "mode", g.getString("mode")).increment();
        if (!RolloutRequested.Mode.TRAIN.wire().equals(g.getString("mode"))) {
            return;
        }
        String taskId = g.getString("task_id");
        int solved = g.getLong("solved").intValue();
        int valid = g.getLong("valid").intValue();
        // What the trainer keeps of the group: with compact filtering, not the members that ran out of turns, context or time.
        int kept = config.compactFilter() ? g.getLong("untruncated").intValue() : valid;
        int keptSolved = config.compactFilter() ? g.getLong("untruncated_solved").intValue() : solved;
        sql.query("INSERT INTO dispatcher.solve_history (group_id, task_id, policy_version, solved, valid, kept, kept_solved)"
                + " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING", group, taskId, g.getLong("policy_version"), solved, valid, kept,
                keptSolved);
        Row s = sql.one("SELECT round, policy_version FROM dispatcher.scheduler WHERE id = 1").orElseThrow();
        long lag = Math.max(0, s.getLong("policy_version") - g.getLong("policy_version"));
        sql.query("INSERT INTO dispatcher.staleness (lag, used) VALUES ($1, 1) ON CONFLICT (lag) DO UPDATE SET used = dispatcher.staleness.used + 1", lag);
        if (valid == 0) {
            return;
        }
        boolean uniform = solved == 0 || solved == valid;
        if (valid > 1) { // one member is always all solved or all failed: it says nothing of the cohort (the warm start's groups of one)
            cohort(sql, taskId, uniform, (double) solved / valid, s.getLong("round"));
        }
        if (uniform) {
            Row t = sql.one("UPDATE dispatcher.task_state SET streak = streak + 1, last_solve_rate = $2 WHERE task_id = $1 RETURNING streak", taskId,
                    (double) solved / valid).orElseThrow();
            long skip = benchRounds(t.getInteger("streak"));
            sql.query("UPDATE dispatcher.task_state SET skip_until = $2 WHERE task_id = $1", taskId, s.getLong("round") + skip);
            metrics.counter("dispatcher_curriculum_benched_total").increment();
        } else {
            sql.query("UPDATE dispatcher.task_state SET streak = 0, skip_until = 0, last_solve_rate = $2 WHERE task_id = $1", taskId,
                    (double) solved / valid);
        }
    }

    /**
     * The task's cohort (when it has one) learns from the group as the task does: benched after an
     * all-solved or all-failed group, for base·2^(streak−1) rounds; back in rotation after a mixed one.
     */
    private void cohort(Sql sql, String taskId, boolean uniform, double rate, long round) {
        var cohort = sql.one("SELECT cohort FROM dispatcher.task_state WHERE task_id = $1 AND cohort IS NOT NULL", taskId);
        if (cohort.isEmpty()) {
            return;
        }
        String name = cohort.get().getString("cohort");
        sql.query("INSERT INTO dispatcher.cohort_state (cohort) VALUES ($1) ON CONFLICT DO NOTHING", name);
        if (uniform) {
            Row c = sql.one("UPDATE dispatcher.cohort_state SET streak = streak + 1, groups = groups + 1, last_solve_rate = $2 WHERE cohort = $1"
                    + " RETURNING streak", name, rate).orElseThrow();
            sql.query("UPDATE dispatcher.cohort_state SET skip_until = $2 WHERE cohort = $1", name, round + benchRounds(c.getInteger("streak")));
            metrics.counter("dispatcher_curriculum_cohort_benched_total").increment();
        } else {
            sql.query("UPDATE dispatcher.cohort_state SET streak = 0, skip_until = 0, groups = groups + 1, last_solve_rate = $2 WHERE cohort = $1",
                    name, rate);
        }
    }

    /** Rounds a task sits out after {@code streak} all-solved or all-failed groups in a row: base·2^(streak−1), capped. */
    long benchRounds(int streak) {
        long skip = (long) config.curriculumBaseSkip() << Math.min(streak - 1, 30);
        return Math.min(skip, config.curriculumMaxSkip());
    }

    /** A new checkpoint: the policy version moves forward; stale training groups in flight are dropped or refreshed. */
    public int checkpoint(CheckpointPublished c) {
        return Sql.transaction(pool, sql -> {
            long current = sql.one("UPDATE dispatcher.scheduler SET policy_version = GREATEST(policy_version, $1) WHERE id = 1 RETURNING policy_version",
                    c.policyVersion()).orElseThrow().getLong("policy_version");
            int n = 0;
            for (Row g : sql.query("SELECT * FROM dispatcher.groups WHERE mode = 'train' AND state = 'requested' AND policy_version < $1 FOR UPDATE",
                    current - config.maxStaleness())) {
                UUID id = g.getUUID("group_id");
                long lag = current - g.getLong("policy_version");
                String reason = "stale: sampled at policy v" + g.getLong("policy_version") + ", trainer at v" + current + " (max-staleness "
                        + config.maxStaleness() + ")";
                sql.query("UPDATE dispatcher.rollouts SET state = 'dropped', reason = $2, deadline = NULL WHERE group_id = $1"
                        + " AND state IN ('requested', 'completed', 'verified')", id, reason);
                sql.query("UPDATE dispatcher.groups SET state = 'dropped', reason = $2, finished_at = now() WHERE group_id = $1", id, reason);
                sql.query("INSERT INTO dispatcher.staleness (lag, dropped) VALUES ($1, 1) ON CONFLICT (lag) DO UPDATE SET dropped = dispatcher.staleness.dropped + 1",
                        lag);
                metrics.counter("dispatcher_groups_stale_total", "action", config.staleAction()).increment();
                if (config.staleAction().equals("refresh")) {
                    var version = tasks.latestVersion(g.getString("task_id")).orElse(g.getInteger("task_version"));
                    var task = tasks.task(g.getString("task_id"), version).orElseThrow();
                    UUID fresh = groups.create(sql, task, version, current, g.getInteger("size"), RolloutRequested.Mode.TRAIN, null, true, null);
                    LOG.infof("group %s %s; refreshed as %s", id, reason, fresh);
                } else {
                    LOG.infof("group %s %s; dropped", id, reason);
                }
                n++;
            }
            return n;
        });
    }
}
