package ai.openalice.rl.dispatcher.service;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.dispatcher.model.Curriculum;
import ai.openalice.rl.dispatcher.model.RolloutState;
import ai.openalice.rl.dispatcher.repository.CurriculumStore;
import ai.openalice.rl.dispatcher.repository.GroupStore;
import ai.openalice.rl.dispatcher.repository.SchedulerStore;
import ai.openalice.rl.dispatcher.repository.TaskStore;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.VerificationCompleted;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.servicekit.Sql;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import java.util.Locale;
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
    RolloutRequests requests;

    @Inject
    TaskStore tasks;

    @Inject
    MeterRegistry metrics;

    @Inject
    TrainerTerms terms;

    @Inject
    SchedulerStore scheduler;

    @Inject
    CurriculumStore history;

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
            row.ifPresent(group -> finish(sql, group));
            return null;
        });
    }

    private void retried(Sql sql, UUID rollout, String why) {
        var group = groups.groupOf(sql, rollout);
        if (requests.retry(sql, rollout, why, tasks)) {
            metrics.counter("dispatcher_rollouts_retried_total", "reason", "infra").increment();
            LOG.warnf("rollout %s: %s; re-requested (or failed when out of attempts)", rollout, why);
            group.ifPresent(g -> finish(sql, g));
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
        var g = done.get();
        metrics.counter("dispatcher_groups_finished_total", "mode", g.mode().wire()).increment();
        if (g.mode() != RolloutRef.Mode.TRAIN) {
            return;
        }
        // What the trainer keeps of the group: with compact filtering, not the members that ran out of turns, context or time.
        boolean compact = terms.current().compactFilter();
        history.recordSolve(sql, g, compact ? g.untruncated() : g.valid(), compact ? g.untruncatedSolved() : g.solved());
        var clock = scheduler.clock(sql, false);
        history.countStaleness(sql, Math.max(0, clock.policyVersion() - g.policyVersion()), true);
        if (g.valid() == 0) {
            return;
        }
        boolean uniform = g.solved() == 0 || g.solved() == g.valid();
        double rate = (double) g.solved() / g.valid();
        learn(sql, CurriculumStore.Level.TASK, g.taskId(), uniform, rate, clock.round(), "dispatcher_curriculum_benched_total");
        // a group of one is always all solved or all failed: it says nothing of the cohort (the warm start's groups of one)
        var cohort = g.valid() > 1 ? history.cohortOf(sql, g.taskId()) : Optional.<String>empty();
        if (cohort.isPresent()) {
            history.countCohortGroup(sql, cohort.get());
            learn(sql, CurriculumStore.Level.COHORT, cohort.get(), uniform, rate, clock.round(), "dispatcher_curriculum_cohort_benched_total");
        }
    }

    /** Applies the curriculum's rule ({@link Curriculum}) to task or cohort {@code id}. */
    private void learn(Sql sql, CurriculumStore.Level level, String id, boolean uniform, double rate, long round, String benchedMetric) {
        var bench = curriculum().after(history.streak(sql, level, id), uniform, round);
        history.bench(sql, level, id, bench, rate);
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
            long current = scheduler.advancePolicy(sql, c.policyVersion());
            int maxStaleness = terms.adopt(sql, c).maxStaleness();
            int n = 0;
            for (var g : groups.requestedTrainingBefore(sql, current - maxStaleness)) {
                UUID id = g.groupId();
                String reason = "stale: sampled at policy v" + g.policyVersion() + ", trainer at v" + current + " (max-staleness " + maxStaleness + ")";
                groups.drop(sql, id, reason);
                history.countStaleness(sql, current - g.policyVersion(), false);
                metrics.counter("dispatcher_groups_stale_total", "action", config.staleAction().name().toLowerCase(Locale.ROOT)).increment();
                if (config.staleAction() == DispatcherConfig.StaleAction.REFRESH) {
                    var version = tasks.latestVersion(g.taskId()).orElse(g.taskVersion());
                    var task = tasks.task(g.taskId(), version).orElseThrow();
                    UUID fresh = requests.create(sql, task, current, g.size(), RolloutRef.Mode.TRAIN, null, true, null);
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
