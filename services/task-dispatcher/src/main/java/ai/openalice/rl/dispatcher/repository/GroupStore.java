package ai.openalice.rl.dispatcher.repository;

import ai.openalice.rl.dispatcher.model.RolloutState;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.servicekit.Outbox;
import ai.openalice.rl.servicekit.Sql;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Groups and the per-rollout state machine, as {@link RolloutState}'s transition table says:
 * every update moves a rollout only from the states its target lists. It records what the services
 * decided ({@code service.RolloutRequests} decides what to request, when and how); the caller's
 * transaction holds the records and the outbox rows together.
 */
@ApplicationScoped
public class GroupStore {
    /** The dispatcher's outbox (schema {@code dispatcher}). */
    public static final Outbox OUTBOX = new Outbox("dispatcher");
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

    /** Records a group of {@code size} members sampled at {@code temperature}: requested now, or pending (waiting for capacity). */
    public UUID insertGroup(Sql sql, TaskStore.Versioned task, long policyVersion, int size, RolloutRef.Mode mode, UUID evalRunId, boolean requested,
            Long round, double temperature) {
        UUID group = UUID.randomUUID();
        sql.query("INSERT INTO dispatcher.groups (group_id, task_id, task_version, policy_version, size, mode, eval_run_id, state, round, temperature)"
                + " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)", group, task.task().instanceId(), task.version(), policyVersion, size, mode.wire(),
                evalRunId, requested ? "requested" : "pending", round, temperature);
        return group;
    }

    /** Records a member waiting with its group for capacity (attempt 1, no deadline). */
    public void insertPending(Sql sql, UUID rollout, UUID group, int member) {
        sql.query("INSERT INTO dispatcher.rollouts (rollout_id, group_id, member_index, attempt, state) VALUES ($1, $2, $3, 1, $4)",
                rollout, group, member, RolloutState.PENDING.wire());
    }

    /** Records an attempt of a member as requested, due by {@code deadline}. */
    public void insertRequested(Sql sql, UUID rollout, UUID group, int member, int attempt, Instant deadline) {
        sql.query("INSERT INTO dispatcher.rollouts (rollout_id, group_id, member_index, attempt, state, deadline) VALUES ($1, $2, $3, $4, $6, $5)",
                rollout, group, member, attempt, deadline.atOffset(ZoneOffset.UTC), RolloutState.REQUESTED.wire());
    }

    /** A member of a group: its rollout and index. */
    public record Member(UUID rolloutId, int index) {}

    /** Marks a pending group requested and takes its pending members out (to be requested afresh); returns them. */
    public List<Member> releasePending(Sql sql, UUID group) {
        sql.query("UPDATE dispatcher.groups SET state = 'requested' WHERE group_id = $1", group);
        var out = new ArrayList<Member>();
        for (Row r : sql.query("DELETE FROM dispatcher.rollouts WHERE group_id = $1 AND state = $2 RETURNING rollout_id, member_index", group,
                RolloutState.PENDING.wire())) {
            out.add(new Member(r.getUUID("rollout_id"), r.getInteger("member_index")));
        }
        return out;
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
        var out = new ArrayList<Group>();
        sql.query("SELECT * FROM dispatcher.groups WHERE state = 'pending' ORDER BY created_at, group_id LIMIT $1", limit).forEach(r -> out.add(Group.of(r)));
        return out;
    }

    /** Live rollouts past their deadline, oldest deadline first, locked (a rollout another transaction holds is skipped). */
    public List<Overdue> overdue(Sql sql, int limit) {
        var out = new ArrayList<Overdue>();
        sql.query("SELECT rollout_id, group_id, state, attempt FROM dispatcher.rollouts WHERE state = ANY($1) AND deadline < now()"
                + " ORDER BY deadline LIMIT $2 FOR UPDATE SKIP LOCKED", LIVE, limit)
                .forEach(r -> out.add(new Overdue(r.getUUID("rollout_id"), r.getUUID("group_id"), RolloutState.of(r.getString("state")),
                        r.getInteger("attempt"))));
        return out;
    }

    /** Requested training groups sampled before policy version {@code before}, locked. */
    public List<Group> requestedTrainingBefore(Sql sql, long before) {
        var out = new ArrayList<Group>();
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

    /** A live attempt marked retried: its group, member index and attempt number. */
    public record Retried(UUID groupId, int member, int attempt) {}

    /** Marks a live attempt retried with the reason; empty when the rollout was not live (a late or repeated event). */
    public Optional<Retried> markRetried(Sql sql, UUID rollout, String reason) {
        return sql.one("UPDATE dispatcher.rollouts SET state = $4, reason = $2, deadline = NULL, updated_at = now()"
                + " WHERE rollout_id = $1 AND state = ANY($3) RETURNING group_id, member_index, attempt", rollout, reason,
                RolloutState.wires(RolloutState.RETRIED.from()), RolloutState.RETRIED.wire())
                .map(r -> new Retried(r.getUUID("group_id"), r.getInteger("member_index"), r.getInteger("attempt")));
    }

    /** Records that a member failed for good (no attempt left), with the reason. */
    public void fail(Sql sql, UUID rollout, String reason) {
        sql.query("UPDATE dispatcher.rollouts SET state = $3, reason = $2 WHERE rollout_id = $1", rollout, reason, RolloutState.FAILED.wire());
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
