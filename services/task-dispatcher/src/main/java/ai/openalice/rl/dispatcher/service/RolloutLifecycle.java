package ai.openalice.rl.dispatcher.service;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.dispatcher.model.Curriculum;
import ai.openalice.rl.dispatcher.model.RolloutState;
import ai.openalice.rl.dispatcher.repository.GroupStore;
import ai.openalice.rl.servicekit.Sql;
import ai.openalice.rl.dispatcher.repository.TaskStore;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.VerificationCompleted;
import ai.openalice.rl.events.VerificationStatus;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * The rollout lifecycle: the downstream events drive each rollout's state (the transition table
 * of {@link ai.openalice.rl.dispatcher.model.RolloutState}); infrastructure failures (of the episode
 * or of the verification) are retried, never counted against the policy. When the last member of a
 * group is settled the group is finished: its solve rate goes to the task's history and to the
 * curriculum, its lag to the staleness histogram. New checkpoints advance the policy version, bring
 * the trainer's terms ({@link TrainerTerms}), and drop (or refresh) training groups that fell more
 * than max-staleness versions behind.
 */
@ApplicationScoped
public class RolloutLifecycle {
    private static final Logger LOG = Logger.getLogger(RolloutLifecycle.class);

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

    @Inject
    TrainerTerms terms;

    public void completed(RolloutCompleted e) {
        Sql.transaction(pool, sql -> {
            if (e.termination() == Termination.INFRA_ERROR) {
                String why = "infra_error in the episode" + (e.error() == null ? "" : ": " + e.error().kind() + ": " + e.error().message());
                retried(sql, e.rolloutId(), why);
            } else {
                count(groups.advance(sql, e.rolloutId(), RolloutState.COMPLETED, Instant.now().plus(config.scoreDeadline())).isPresent());
            }
            return null;
        });
    }

    public void verified(VerificationCompleted e) {
        Sql.transaction(pool, sql -> {
            if (e.status() == VerificationStatus.INFRA_ERROR) {
                retried(sql, e.rolloutId(), "infra_error in the verification: " + e.error());
            } else {
                count(groups.advance(sql, e.rolloutId(), RolloutState.VERIFIED, Instant.now().plus(config.scoreDeadline())).isPresent());
            }
            return null;
        });
    }

    public void scored(RewardScored e) {
        Sql.transaction(pool, sql -> {
            if (e.maskedForInfra()) {
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
        if (!RolloutRef.Mode.TRAIN.wire().equals(g.getString("mode"))) {
            return;
        }
        String taskId = g.getString("task_id");
        int solved = g.getLong("solved").intValue();
        int valid = g.getLong("valid").intValue();
        // What the trainer keeps of the group: with compact filtering, not the members that ran out of turns, context or time.
        boolean compact = terms.current().compactFilter();
        int kept = compact ? g.getLong("untruncated").intValue() : valid;
        int keptSolved = compact ? g.getLong("untruncated_solved").intValue() : solved;
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
        double rate = (double) solved / valid;
        long round = s.getLong("round");
        learn(sql, "task_state", "task_id", taskId, uniform, rate, round, "dispatcher_curriculum_benched_total");
        // a group of one is always all solved or all failed: it says nothing of the cohort (the warm start's groups of one)
        var cohort = valid > 1 ? sql.one("SELECT cohort FROM dispatcher.task_state WHERE task_id = $1 AND cohort IS NOT NULL", taskId) : Optional.<Row>empty();
        if (cohort.isPresent()) {
            String name = cohort.get().getString("cohort");
            sql.query("INSERT INTO dispatcher.cohort_state (cohort, groups) VALUES ($1, 1) ON CONFLICT (cohort) DO UPDATE SET groups = dispatcher.cohort_state.groups + 1",
                    name);
            learn(sql, "cohort_state", "cohort", name, uniform, rate, round, "dispatcher_curriculum_cohort_benched_total");
        }
    }

    /** Applies the curriculum's rule ({@link Curriculum}) to the row of {@code table} whose {@code key} is {@code id}. */
    private void learn(Sql sql, String table, String key, String id, boolean uniform, double rate, long round, String benchedMetric) {
        String row = " WHERE " + key + " = $1";
        int streak = sql.one("SELECT streak FROM dispatcher." + table + row + " FOR UPDATE", id).orElseThrow().getInteger("streak");
        var bench = curriculum().after(streak, uniform, round);
        sql.query("UPDATE dispatcher." + table + " SET streak = $2, skip_until = $3, last_solve_rate = $4" + row, id, bench.streak(), bench.skipUntil(),
                rate);
        if (uniform) {
            metrics.counter(benchedMetric).increment();
        }
    }

    Curriculum curriculum() {
        return new Curriculum(config.curriculumBaseSkip(), config.curriculumMaxSkip());
    }

    /** A new checkpoint: the policy version moves forward; stale training groups in flight are dropped or refreshed. */
    public int checkpoint(CheckpointPublished c) {
        return Sql.transaction(pool, sql -> {
            long current = sql.one("UPDATE dispatcher.scheduler SET policy_version = GREATEST(policy_version, $1) WHERE id = 1 RETURNING policy_version",
                    c.policyVersion()).orElseThrow().getLong("policy_version");
            int maxStaleness = terms.adopt(sql, c).maxStaleness();
            int n = 0;
            for (Row g : sql.query("SELECT * FROM dispatcher.groups WHERE mode = 'train' AND state = 'requested' AND policy_version < $1 FOR UPDATE",
                    current - maxStaleness)) {
                UUID id = g.getUUID("group_id");
                long lag = current - g.getLong("policy_version");
                String reason = "stale: sampled at policy v" + g.getLong("policy_version") + ", trainer at v" + current + " (max-staleness "
                        + maxStaleness + ")";
                sql.query("UPDATE dispatcher.rollouts SET state = $3, reason = $2, deadline = NULL WHERE group_id = $1 AND state = ANY($4)", id, reason,
                        RolloutState.DROPPED.wire(), RolloutState.wires(RolloutState.DROPPED.from()));
                sql.query("UPDATE dispatcher.groups SET state = 'dropped', reason = $2, finished_at = now() WHERE group_id = $1", id, reason);
                sql.query("INSERT INTO dispatcher.staleness (lag, dropped) VALUES ($1, 1) ON CONFLICT (lag) DO UPDATE SET dropped = dispatcher.staleness.dropped + 1",
                        lag);
                metrics.counter("dispatcher_groups_stale_total", "action", config.staleAction().name().toLowerCase(java.util.Locale.ROOT)).increment();
                if (config.staleAction() == DispatcherConfig.StaleAction.REFRESH) {
                    var version = tasks.latestVersion(g.getString("task_id")).orElse(g.getInteger("task_version"));
                    var task = tasks.task(g.getString("task_id"), version).orElseThrow();
                    UUID fresh = groups.create(sql, task, current, g.getInteger("size"), RolloutRef.Mode.TRAIN, null, true, null);
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
