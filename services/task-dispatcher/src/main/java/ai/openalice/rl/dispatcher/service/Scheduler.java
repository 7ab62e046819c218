package ai.openalice.rl.dispatcher.service;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.dispatcher.repository.GroupStore;
import ai.openalice.rl.dispatcher.repository.SchedulerStore;
import ai.openalice.rl.dispatcher.repository.TaskStore;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.servicekit.Sql;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.jboss.logging.Logger;

/**
 * One scheduling pass, under a database-wide lock so that several dispatchers never schedule the
 * same capacity twice: evaluation groups waiting for capacity first (oldest first), then training
 * groups while the in-flight cap allows; then the deadline watch.
 *
 * <p>Which training task: tasks the curriculum has not benched come first; among them, the
 * source furthest below its weighted fair share (groups ÷ weight), then the task of that source
 * furthest below its own share (groups ÷ priority), then the id. A benched task is still chosen
 * when nothing else is left, so a suite that is all solved keeps running.
 */
@ApplicationScoped
public class Scheduler {
    private static final Logger LOG = Logger.getLogger(Scheduler.class);

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
    SchedulerStore store;

    @Inject
    MeterRegistry metrics;

    @Inject
    RolloutLifecycle lifecycle;

    @Inject
    Pacer pacer;

    @Inject
    TrainerTerms terms;

    private final AtomicLong inFlight = new AtomicLong();

    @PostConstruct
    void init() {
        if (config.maxInFlight() < config.groupSize()) {
            throw new IllegalArgumentException("dispatcher.max-in-flight (" + config.maxInFlight() + ") must be at least dispatcher.group-size ("
                    + config.groupSize() + "), or no group could ever be requested");
        }
        metrics.gauge("dispatcher_rollouts_in_flight", inFlight);
    }

    public int groupsPerPass() {
        return config.maxGroupsPerPass();
    }

    /** Schedules what capacity allows; returns the number of groups requested. */
    public int tick() {
        int requested = Sql.transaction(pool, sql -> {
            if (!store.tryLock(sql)) {
                return 0;
            }
            terms.refresh(sql); // another replica may have adopted newer ones
            long live = groups.liveCount(sql);
            int n = 0;
            for (var g : groups.pending(sql, config.maxGroupsPerPass())) {
                if (live + g.size() > config.maxInFlight()) {
                    break;
                }
                requests.release(sql, g, tasks.task(g.taskId(), g.taskVersion()).orElseThrow());
                live += g.size();
                n++;
            }
            long room = pacer.room(sql);
            while (config.train() && live + config.groupSize() <= config.maxInFlight() && n < config.maxGroupsPerPass() && room-- > 0) {
                if (!scheduleTraining(sql)) {
                    break;
                }
                live += config.groupSize();
                n++;
            }
            inFlight.set(live);
            return n;
        });
        metrics.counter("dispatcher_groups_requested_total").increment(requested);
        watchDeadlines();
        return requested;
    }

    private boolean scheduleTraining(Sql sql) {
        var clock = store.clock(sql, true);
        var pick = store.pickTraining(sql, clock.round(), config.sourceWeights());
        if (pick.isEmpty()) {
            return false;
        }
        var task = tasks.task(pick.get().taskId(), pick.get().version()).orElseThrow();
        store.countTrainingGroup(sql, pick.get());
        UUID group = requests.create(sql, task, clock.policyVersion(), config.groupSize(), RolloutRef.Mode.TRAIN, null, true, clock.round());
        LOG.debugf("round %d: group %s of %s v%d at policy v%d", clock.round(), group, pick.get().taskId(), pick.get().version(), clock.policyVersion());
        return true;
    }

    /** Rollouts that stopped progressing (a lost runner, a lost event) are re-requested, or failed once out of attempts. */
    public int watchDeadlines() {
        return Sql.transaction(pool, sql -> {
            int n = 0;
            for (var r : groups.overdue(sql, 100)) {
                String reason = "deadline passed in state " + r.state().wire() + " with no " + r.state().awaits() + " (lost runner or lost event)";
                requests.retry(sql, r.rolloutId(), reason, tasks);
                lifecycle.finish(sql, r.groupId());
                metrics.counter("dispatcher_rollouts_retried_total", "reason", "deadline").increment();
                LOG.warnf("rollout %s attempt %d: %s", r.rolloutId(), r.attempt(), reason);
                n++;
            }
            return n;
        });
    }
}
