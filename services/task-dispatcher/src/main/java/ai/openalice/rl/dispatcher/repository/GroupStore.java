package ai.openalice.rl.dispatcher.repository;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.dispatcher.model.RolloutState;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.RolloutRequested;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.servicekit.Sql;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Groups and the per-rollout state machine, as {@link RolloutState}'s transition table says:
 * every update moves a rollout only from the states its target lists. Every request is queued in
 * the outbox in the transaction that records it.
 */
@ApplicationScoped
public class GroupStore {
    public static final String CHANNEL = "rollouts-requested";
    /** The dispatcher's outbox (schema {@code dispatcher}). */
    public static final ai.openalice.rl.servicekit.Outbox OUTBOX = new ai.openalice.rl.servicekit.Outbox("dispatcher");
    /** States in which a rollout counts as in flight, as a SQL array parameter. */
    public static final String[] LIVE = RolloutState.wires(RolloutState.LIVE);
    /** States of a member that keep its group from finishing (live, or pending capacity). */
    static final String[] UNFINISHED = RolloutState.wires(RolloutState.UNFINISHED);

    /** A group as stored: {@code state} pending, requested, finished or dropped; {@code temperature} null when created before it was recorded. */
    public record Group(UUID groupId, String taskId, int taskVersion, long policyVersion, int size, RolloutRef.Mode mode, UUID evalRunId,
            String state, String reason, Double temperature) {
        static Group of(Row r) {
            return new Group(r.getUUID("group_id"), r.getString("task_id"), r.getInteger("task_version"), r.getLong("policy_version"),
                    r.getInteger("size"), RolloutRef.Mode.of(r.getString("mode")), r.getUUID("eval_run_id"), r.getString("state"),
                    r.getString("reason"), r.getDouble("temperature"));
        }
    }

    /** A group just finished: its members scored and not masked ({@code valid}), solved, and those not truncated. */
    public record Finished(UUID groupId, String taskId, RolloutRef.Mode mode, long policyVersion, int solved, int valid, int untruncatedSolved,
            int untruncated) {}

    /** A live rollout whose deadline passed. */
    public record Overdue(UUID rolloutId, UUID groupId, RolloutState state, int attempt) {}

    @Inject
    DispatcherConfig config;

    @Inject
    ai.openalice.rl.dispatcher.service.TrainerTerms terms;

    /** Creates a group of {@code size} members; {@code requested} sends them now, {@code pending} leaves them for {@link #release}. */
    public UUID create(Sql sql, TaskStore.Versioned task, long policyVersion, int size, RolloutRef.Mode mode, UUID evalRunId,
            boolean requested, Long round) {
        UUID group = UUID.randomUUID();
        double temperature = terms.current().temperature();
        sql.query("INSERT INTO dispatcher.groups (group_id, task_id, task_version, policy_version, size, mode, eval_run_id, state, round, temperature)"
                + " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)", group, task.task().instanceId(), task.version(), policyVersion, size, mode.wire(),
                evalRunId, requested ? "requested" : "pending", round, temperature);
        for (int m = 0; m < size; m++) {
            UUID rollout = UUID.randomUUID();
            if (requested) {
                request(sql, task, group, rollout, policyVersion, size, m, 1, mode, evalRunId, temperature);
            } else {
                sql.query("INSERT INTO dispatcher.rollouts (rollout_id, group_id, member_index, attempt, state) VALUES ($1, $2, $3, 1, $4)",
                        rollout, group, m, RolloutState.PENDING.wire());
            }
        }
        return group;
    }

    /** Sends a pending group (an evaluation waiting for capacity). */
    public void release(Sql sql, Group group, TaskStore.Versioned task) {
        UUID id = group.groupId();
        sql.query("UPDATE dispatcher.groups SET state = 'requested' WHERE group_id = $1", id);
        for (Row r : sql.query("DELETE FROM dispatcher.rollouts WHERE group_id = $1 AND state = $2 RETURNING rollout_id, member_index", id,
                RolloutState.PENDING.wire())) {
            request(sql, task, id, r.getUUID("rollout_id"), group.policyVersion(), group.size(), r.getInteger("member_index"), 1, group.mode(),
                    group.evalRunId(), temperatureOf(group));
        }
    }

    /** The temperature the group is sampled at (a group created before it was recorded: today's). */
    private double temperatureOf(Group group) {
        return group.temperature() == null ? terms.current().temperature() : group.temperature();
    }

    /** The group, if it exists. */
    public Optional<Group> group(Sql sql, UUID group) {
        return sql.one("SELECT * FROM dispatcher.groups WHERE group_id = $1", group).map(Group::of);
    }

    /** The group a rollout belongs to, if the rollout is known. */
    public Optional<UUID> groupOf(Sql sql, UUID rollout) {
        return sql.one("SELECT group_id FROM dispatcher.rollouts WHERE rollout_id = $1", rollout).map(r -> r.getUUID("group_id"));
    }

    /** Rollouts in flight, over all groups. */
    public long liveCount(Sql sql) {
        return sql.one("SELECT count(*) AS n FROM dispatcher.rollouts WHERE state = ANY($1)", (Object) LIVE).orElseThrow().getLong("n");
    }

    /** Groups waiting for capacity (evaluations), oldest first. */
    public List<Group> pending(Sql sql, int limit) {
        var out = new java.util.ArrayList<Group>();
        sql.query("SELECT * FROM dispatcher.groups WHERE state = 'pending' ORDER BY created_at, group_id LIMIT $1", limit).forEach(r -> out.add(Group.of(r)));
        return out;
    }

    /** Live rollouts past their deadline, oldest deadline first, locked (a rollout another transaction holds is skipped). */
    public List<Overdue> overdue(Sql sql, int limit) {
        var out = new java.util.ArrayList<Overdue>();
        sql.query("SELECT rollout_id, group_id, state, attempt FROM dispatcher.rollouts WHERE state = ANY($1) AND deadline < now()"
                + " ORDER BY deadline LIMIT $2 FOR UPDATE SKIP LOCKED", LIVE, limit)
                .forEach(r -> out.add(new Overdue(r.getUUID("rollout_id"), r.getUUID("group_id"), RolloutState.of(r.getString("state")),
                        r.getInteger("attempt"))));
        return out;
    }

    /** Requested training groups sampled before policy version {@code before}, locked. */
    public List<Group> requestedTrainingBefore(Sql sql, long before) {
        var out = new java.util.ArrayList<Group>();
        sql.query("SELECT * FROM dispatcher.groups WHERE mode = 'train' AND state = 'requested' AND policy_version < $1 FOR UPDATE", before)
                .forEach(r -> out.add(Group.of(r)));
        return out;
    }

    /** Drops a group and its members still in flight, with the reason. */
    public void drop(Sql sql, UUID group, String reason) {
        sql.query("UPDATE dispatcher.rollouts SET state = $3, reason = $2, deadline = NULL WHERE group_id = $1 AND state = ANY($4)", group, reason,
                RolloutState.DROPPED.wire(), RolloutState.wires(RolloutState.DROPPED.from()));
        sql.query("UPDATE dispatcher.groups SET state = 'dropped', reason = $2, finished_at = now() WHERE group_id = $1", group, reason);
    }

    private void request(Sql sql, TaskStore.Versioned versioned, UUID group, UUID rollout, long policyVersion, int size, int member, int attempt,
            RolloutRef.Mode mode, UUID evalRunId, double temperature) {
        Task task = versioned.task();
        Instant deadline = Instant.now().plus(runDeadline(task));
        sql.query("INSERT INTO dispatcher.rollouts (rollout_id, group_id, member_index, attempt, state, deadline) VALUES ($1, $2, $3, $4, $6, $5)",
                rollout, group, member, attempt, deadline.atOffset(ZoneOffset.UTC), RolloutState.REQUESTED.wire());
        var s = config.sampling();
        var ref = new RolloutRef(task.instanceId(), versioned.version(), versioned.contentHash(), group, rollout, member, attempt, size, policyVersion, mode,
                evalRunId, new RolloutRef.Sampling(temperature, s.topP(), s.maxTokensPerTurn(), s.seed().orElse(null)));
        var view = task.agentView(versioned.version(), versioned.contentHash());
        view = view.withLimits(view.limits().withMaxContextTokens(terms.current().contextBound(view.limits().maxContextTokens())));
        var event = Envelope.of(new RolloutRequested(ref, view, deadline));
        OUTBOX.enqueue(sql, event);
    }

    /** The configured run deadline, but never shorter than the task's own episode timeout plus a minute. */
    Duration runDeadline(Task task) {
        Duration episode = Duration.ofSeconds(task.limits().episodeTimeoutS()).plusMinutes(1);
        return episode.compareTo(config.runDeadline()) > 0 ? episode : config.runDeadline();
    }

    /** Moves a live rollout forward; its group, or empty when it is unknown or not in a state {@code to} follows (a late or repeated event). */
    public Optional<UUID> advance(Sql sql, UUID rollout, RolloutState to, Instant deadline) {
        return sql.one("UPDATE dispatcher.rollouts SET state = $2, deadline = $3, updated_at = now() WHERE rollout_id = $1 AND state = ANY($4)"
                + " RETURNING group_id", rollout, to.wire(), deadline == null ? null : deadline.atOffset(ZoneOffset.UTC), RolloutState.wires(to.from()))
                .map(r -> r.getUUID("group_id"));
    }

    /** Records the score of a rollout (the end of its road); its group, or empty when it was not live. */
    public Optional<UUID> score(Sql sql, UUID rollout, boolean masked, boolean truncated, Integer rExec, Double reward, Double sPrm, long tokens) {
        return sql.one("UPDATE dispatcher.rollouts SET state = $9, masked = $2, r_exec = $3, reward = $4, s_prm = $5, tokens = $6,"
                + " truncated = $8, deadline = NULL, updated_at = now() WHERE rollout_id = $1 AND state = ANY($7) RETURNING group_id",
                rollout, masked, rExec, reward, sPrm, tokens, RolloutState.wires(RolloutState.SCORED.from()), truncated, RolloutState.SCORED.wire())
                .map(r -> r.getUUID("group_id"));
    }

    /**
     * Gives up on this attempt of a member: a new attempt is requested while attempts remain,
     * else the member is failed with the reason. Never a reward. False when the rollout was not live.
     */
    public boolean retry(Sql sql, UUID rollout, String reason, TaskStore tasks) {
        var row = sql.one("UPDATE dispatcher.rollouts SET state = $4, reason = $2, deadline = NULL, updated_at = now()"
                + " WHERE rollout_id = $1 AND state = ANY($3) RETURNING group_id, member_index, attempt", rollout, reason,
                RolloutState.wires(RolloutState.RETRIED.from()), RolloutState.RETRIED.wire());
        if (row.isEmpty()) {
            return false;
        }
        UUID group = row.get().getUUID("group_id");
        int attempt = row.get().getInteger("attempt");
        Group g = group(sql, group).orElseThrow();
        if (attempt >= config.maxAttempts()) {
            sql.query("UPDATE dispatcher.rollouts SET state = $3, reason = $2 WHERE rollout_id = $1", rollout,
                    "gave up after " + attempt + " attempt(s); last: " + reason, RolloutState.FAILED.wire());
            return true;
        }
        var task = tasks.task(g.taskId(), g.taskVersion())
                .orElseThrow(() -> new IllegalStateException("group " + group + ": task " + g.taskId() + " is gone"));
        request(sql, task, group, UUID.randomUUID(), g.policyVersion(), g.size(), row.get().getInteger("member_index"), attempt + 1, g.mode(),
                g.evalRunId(), temperatureOf(g));
        return true;
    }

    /** The group's outcome once no member is live: (solved, valid) or empty while it is still running. */
    public Optional<Finished> finishIfDone(Sql sql, UUID group) {
        var live = sql.one("SELECT count(*) AS n FROM dispatcher.rollouts WHERE group_id = $1 AND state = ANY($2)", group, UNFINISHED)
                .orElseThrow().getLong("n");
        if (live > 0) {
            return Optional.empty();
        }
        return sql.one("""
                UPDATE dispatcher.groups g SET state = 'finished', finished_at = now()
                 WHERE group_id = $1 AND state = 'requested'
                RETURNING g.task_id, g.mode, g.policy_version,
                  (SELECT count(*) FROM dispatcher.rollouts r WHERE r.group_id = g.group_id AND r.state = 'scored' AND NOT r.masked AND r.r_exec = 1) AS solved,
                  (SELECT count(*) FROM dispatcher.rollouts r WHERE r.group_id = g.group_id AND r.state = 'scored' AND NOT r.masked) AS valid,
                  (SELECT count(*) FROM dispatcher.rollouts r WHERE r.group_id = g.group_id AND r.state = 'scored' AND NOT r.masked
                     AND NOT r.truncated AND r.r_exec = 1) AS untruncated_solved,
                  (SELECT count(*) FROM dispatcher.rollouts r WHERE r.group_id = g.group_id AND r.state = 'scored' AND NOT r.masked
                     AND NOT r.truncated) AS untruncated""", group)
                .map(r -> new Finished(group, r.getString("task_id"), RolloutRef.Mode.of(r.getString("mode")), r.getLong("policy_version"),
                        r.getLong("solved").intValue(), r.getLong("valid").intValue(), r.getLong("untruncated_solved").intValue(),
                        r.getLong("untruncated").intValue()));
    }
}
