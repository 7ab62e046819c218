package ai.openalice.rl.dispatcher.service;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.dispatcher.model.RolloutState;
import ai.openalice.rl.dispatcher.repository.GroupStore;
import ai.openalice.rl.servicekit.Sql;
import ai.openalice.rl.dispatcher.repository.TaskStore;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.RolloutRequested;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
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
    private static final long LOCK = 0x616c696365L; // "alice"

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
            if (!sql.one("SELECT pg_try_advisory_xact_lock($1) AS ok", LOCK).orElseThrow().getBoolean("ok")) {
                return 0;
            }
            terms.refresh(sql); // another replica may have adopted newer ones
            long live = sql.one("SELECT count(*) AS n FROM dispatcher.rollouts WHERE state = ANY($1)", (Object) GroupStore.LIVE)
                    .orElseThrow().getLong("n");
            int n = 0;
            for (Row g : sql.query("SELECT * FROM dispatcher.groups WHERE state = 'pending' ORDER BY created_at, group_id LIMIT $1",
                    config.maxGroupsPerPass())) {
                if (live + g.getInteger("size") > config.maxInFlight()) {
                    break;
                }
                groups.release(sql, g, tasks.task(g.getString("task_id"), g.getInteger("task_version")).orElseThrow());
                live += g.getInteger("size");
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

    /** Every task's state {@code s} beside its cohort's {@code c} (none: nulls). */
    public static final String TASKS_WITH_COHORTS = "dispatcher.task_state s LEFT JOIN dispatcher.cohort_state c ON c.cohort = s.cohort";

    /** Whether the curriculum benches task {@code s} at round {@code $1}: its own bench, or its cohort's. */
    public static final String BENCHED = "(s.skip_until > $1 OR COALESCE(c.skip_until, 0) > $1)";

    private boolean scheduleTraining(Sql sql) {
        Row state = sql.one("SELECT policy_version, round FROM dispatcher.scheduler WHERE id = 1 FOR UPDATE").orElseThrow();
        long round = state.getLong("round");
        var names = new ArrayList<String>();
        var weights = new ArrayList<Double>();
        config.sourceWeights().forEach((k, v) -> {
            names.add(k);
            weights.add(v);
        });
        var pick = sql.one("""
                SELECT s.task_id, s.version, s.source FROM %s JOIN dispatcher.sources src ON src.source = s.source
                 WHERE s.split = 'train'
                 ORDER BY %s,
                          src.groups / COALESCE((SELECT w.weight FROM unnest($2::text[], $3::float8[]) AS w(name, weight) WHERE w.name = s.source), 1.0),
                          s.groups::float8 / s.priority, md5(s.task_id), s.task_id
                 LIMIT 1""".formatted(TASKS_WITH_COHORTS, BENCHED), round, names.toArray(String[]::new), weights.toArray(Double[]::new));
        if (pick.isEmpty()) {
            return false;
        }
        String taskId = pick.get().getString("task_id");
        int version = pick.get().getInteger("version");
        var task = tasks.task(taskId, version).orElseThrow();
        sql.query("UPDATE dispatcher.task_state SET groups = groups + 1 WHERE task_id = $1", taskId);
        sql.query("UPDATE dispatcher.sources SET groups = groups + 1 WHERE source = $1", pick.get().getString("source"));
        sql.query("UPDATE dispatcher.scheduler SET round = round + 1 WHERE id = 1");
        UUID group = groups.create(sql, task, state.getLong("policy_version"), config.groupSize(), RolloutRef.Mode.TRAIN, null, true,
                round);
        LOG.debugf("round %d: group %s of %s v%d at policy v%d", round, group, taskId, version, state.getLong("policy_version"));
        return true;
    }

    /** Rollouts that stopped progressing (a lost runner, a lost event) are re-requested, or failed once out of attempts. */
    public int watchDeadlines() {
        return Sql.transaction(pool, sql -> {
            int n = 0;
            for (Row r : sql.query("SELECT rollout_id, group_id, state, attempt FROM dispatcher.rollouts WHERE state = ANY($1)"
                    + " AND deadline < now() ORDER BY deadline LIMIT 100 FOR UPDATE SKIP LOCKED", (Object) GroupStore.LIVE)) {
                String waitingFor = RolloutState.of(r.getString("state")).awaits();
                String reason = "deadline passed in state " + r.getString("state") + " with no " + waitingFor + " (lost runner or lost event)";
                groups.retry(sql, r.getUUID("rollout_id"), reason, tasks);
                lifecycle.finish(sql, r.getUUID("group_id"));
                metrics.counter("dispatcher_rollouts_retried_total", "reason", "deadline").increment();
                LOG.warnf("rollout %s attempt %d: %s", r.getUUID("rollout_id"), r.getInteger("attempt"), reason);
                n++;
            }
            return n;
        });
    }
}
