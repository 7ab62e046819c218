package ai.openalice.rl.trainer.repository;

import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.servicekit.Outbox;
import ai.openalice.rl.servicekit.Sql;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Scored rollouts and their groups, the checkpoint registry. A sample's {@code step} is written
 * in the transaction that registers the checkpoint holding that step's update: the ledger and the
 * weights can never disagree, whatever crashes.
 */
@ApplicationScoped
public class TrainerStore {
    static final Duration DB = Duration.ofSeconds(30);
    public static final String SCHEMA = "trainer";
    /** The trainer's outbox. */
    public static final Outbox OUTBOX = new Outbox(SCHEMA);

    @Inject
    Pool pool;

    /**
     * Keeps a scored rollout (a redelivery changes nothing). A member that arrives after its group
     * was trained or dropped is kept in the ledger too (untrained; its trajectory goes with the
     * group's under retention), and the answer is false: it will never be trained on.
     */
    public boolean add(RewardScored r) {
        boolean infra = r.maskedForInfra();
        String trajectory;
        try {
            trajectory = EventCodec.mapper().writeValueAsString(r.trajectory());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return Sql.transaction(pool, sql -> {
            sql.query("INSERT INTO trainer.groups (group_id) VALUES ($1) ON CONFLICT DO NOTHING", r.groupId());
            var state = sql.one("SELECT state FROM trainer.groups WHERE group_id = $1", r.groupId()).orElseThrow().getString("state");
            sql.query("""
                    INSERT INTO trainer.samples (rollout_id, group_id, task_id, policy_version, group_size, masked, infra, termination, reward, r_exec,
                                                 s_prm, trajectory, mode, temperature)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT DO NOTHING""",
                    r.rolloutId(), r.groupId(), r.taskId(), r.policyVersion(), r.groupSize(), r.masked(), infra, r.termination().wire(), r.reward(),
                    r.rExec(), r.sPrm(), new JsonObject(trajectory), r.ref().mode().wire(), r.ref().sampling().temperature());
            return state.equals("open");
        });
    }

    /**
     * A stored member of a group; {@code temperature} is the one it was sampled at (null for a sample
     * stored before rewards.scored carried it).
     */
    public record Member(UUID rolloutId, UUID groupId, String taskId, long policyVersion, int groupSize, boolean masked, boolean infra,
            Termination termination, Double reward, Integer rExec, Double sPrm, TrajectoryRef trajectory, Double temperature) {}

    /**
     * An open group ready to train: complete (every member scored, infrastructure failures not
     * counting) or past its deadline; or an evaluation group (a member's header says so), at once.
     */
    public record ReadyGroup(UUID groupId, boolean evaluation, List<Member> members) {}

    /** Up to {@code limit} ready groups, oldest first, skipping {@code exclude} (used by steps not yet committed). */
    public List<ReadyGroup> ready(int limit, Duration deadline, Collection<UUID> exclude) {
        var ids = new ArrayList<UUID>();
        for (Row r : pool.preparedQuery("""
                SELECT g.group_id FROM trainer.groups g
                  JOIN trainer.samples s ON s.group_id = g.group_id
                 WHERE g.state = 'open' AND NOT (g.group_id = ANY($3))
                 GROUP BY g.group_id
                HAVING count(*) FILTER (WHERE NOT s.infra) >= max(s.group_size)
                    OR min(g.first_seen) < now() - make_interval(secs => $2)
                    OR bool_or(s.mode = 'eval')
                 ORDER BY min(g.first_seen) LIMIT $1""")
                .execute(Tuple.of(limit, (double) deadline.toMillis() / 1000, exclude.toArray(UUID[]::new))).await().atMost(DB)) {
            ids.add(r.getUUID("group_id"));
        }
        if (ids.isEmpty()) {
            return List.of();
        }
        var evaluation = new HashSet<UUID>();
        var members = new LinkedHashMap<UUID, List<Member>>();
        ids.forEach(id -> members.put(id, new ArrayList<>()));
        for (Row r : pool.preparedQuery("SELECT * FROM trainer.samples WHERE group_id = ANY($1) ORDER BY received_at, rollout_id")
                .execute(Tuple.of(ids.toArray(UUID[]::new))).await().atMost(DB)) {
            if (RolloutRef.Mode.EVAL.wire().equals(r.getString("mode"))) {
                evaluation.add(r.getUUID("group_id"));
            }
            try {
                members.get(r.getUUID("group_id")).add(new Member(r.getUUID("rollout_id"), r.getUUID("group_id"), r.getString("task_id"),
                        r.getLong("policy_version"), r.getInteger("group_size"), r.getBoolean("masked"), r.getBoolean("infra"),
                        Termination.of(r.getString("termination")), r.getDouble("reward"), r.getInteger("r_exec"), r.getDouble("s_prm"),
                        EventCodec.read(EventCodec.mapper().readTree(r.getJsonObject("trajectory").encode()), TrajectoryRef.class), r.getDouble("temperature")));
            } catch (IOException e) {
                throw new IllegalStateException("stored trajectory of " + r.getUUID("rollout_id") + " is unreadable", e);
            }
        }
        var out = new ArrayList<ReadyGroup>();
        members.forEach((id, m) -> out.add(new ReadyGroup(id, evaluation.contains(id), List.copyOf(m))));
        return out;
    }

    /** Groups left out of training for good (evaluation, stale, all rewards equal, …), with the reason. */
    public void drop(Map<UUID, String> reasons) {
        if (reasons.isEmpty()) {
            return;
        }
        Sql.transaction(pool, sql -> {
            reasons.forEach((id, why) -> sql.query("UPDATE trainer.groups SET state = 'dropped', reason = $2 WHERE group_id = $1 AND state = 'open'",
                    id, why));
            return null;
        });
    }

    /** A registered checkpoint. */
    public record Registered(long policyVersion, long step, String dir) {}

    public Optional<Registered> latest() {
        var rows = pool.query("SELECT policy_version, step, dir FROM trainer.checkpoints ORDER BY policy_version DESC LIMIT 1").execute().await().atMost(DB);
        if (!rows.iterator().hasNext()) {
            return Optional.empty();
        }
        Row r = rows.iterator().next();
        return Optional.of(new Registered(r.getLong("policy_version"), r.getLong("step"), r.getString("dir")));
    }

    /** The steps trained since the last checkpoint: their groups and samples, by step. */
    public record Pending(long step, List<UUID> groups, List<UUID> samples) {}

    /**
     * Registers a checkpoint, commits the ledger of the steps it holds, and queues its event — one
     * transaction. {@code metricsJson} is the registry row's summary.
     */
    public void commit(long policyVersion, long step, String dir, String onnxSha256, String metricsJson, List<Pending> pending,
            Envelope<?> event) {
        Sql.transaction(pool, sql -> {
            sql.query("INSERT INTO trainer.checkpoints (policy_version, step, dir, onnx_sha256, metrics) VALUES ($1, $2, $3, $4, $5)", policyVersion, step,
                    dir, onnxSha256, new JsonObject(metricsJson));
            for (Pending p : pending) {
                sql.query("UPDATE trainer.samples SET step = $2 WHERE rollout_id = ANY($1) AND step IS NULL", p.samples().toArray(UUID[]::new), p.step());
                sql.query("UPDATE trainer.groups SET state = 'trained', settled_step = $2 WHERE group_id = ANY($1)", p.groups().toArray(UUID[]::new),
                        p.step());
            }
            OUTBOX.enqueue(sql, event);
            return null;
        });
    }

    /** Queues an event on its own (per-step metrics). */
    public void enqueue(Envelope<?> event) {
        Sql.transaction(pool, sql -> {
            OUTBOX.enqueue(sql, event);
            return null;
        });
    }

    /**
     * Drops the trajectories no step will read again — of samples trained at step
     * {@code trainedUpTo} or before, of the untrained members (infrastructure failures) of groups
     * settled by then, and of groups dropped before {@code droppedBefore} — at most
     * {@code batch} rows, so that a long backlog never holds a long transaction; the ledger columns
     * stay. How many were dropped.
     */
    public int dropTrajectories(long trainedUpTo, Instant droppedBefore, int batch) {
        return pool.preparedQuery("""
                UPDATE trainer.samples SET trajectory = NULL WHERE rollout_id IN (SELECT rollout_id FROM (
                    (SELECT rollout_id FROM trainer.samples WHERE trajectory IS NOT NULL AND step IS NOT NULL AND step <= $1 LIMIT $3)
                    UNION ALL
                    (SELECT s.rollout_id FROM trainer.samples s JOIN trainer.groups g ON g.group_id = s.group_id
                      WHERE s.trajectory IS NOT NULL AND s.step IS NULL
                        AND ((g.state = 'dropped' AND g.first_seen < $2) OR (g.state = 'trained' AND g.settled_step <= $1)) LIMIT $3)) due LIMIT $3)
                """).execute(Tuple.of(trainedUpTo, OffsetDateTime.ofInstant(droppedBefore, ZoneOffset.UTC),
                batch)).await().atMost(DB).rowCount();
    }

    /** A value the trainer keeps about its run's recording ({@code mlflow.run_id}); empty when none was kept. */
    public Optional<String> tracking(String key) {
        var rows = pool.preparedQuery("SELECT value FROM trainer.tracking WHERE key = $1").execute(Tuple.of(key)).await().atMost(DB);
        return rows.size() == 0 ? Optional.empty() : Optional.of(rows.iterator().next().getString("value"));
    }

    public void tracking(String key, String value) {
        pool.preparedQuery("INSERT INTO trainer.tracking (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value")
                .execute(Tuple.of(key, value)).await().atMost(DB);
    }

    /** Counts for {@code GET /status}. */
    public Map<String, Long> counts() {
        var out = new LinkedHashMap<String, Long>();
        pool.query("SELECT state, count(*) AS n FROM trainer.groups GROUP BY state").execute().await().atMost(DB)
                .forEach(r -> out.put("groups." + r.getString("state"), r.getLong("n")));
        Row s = pool.query("SELECT count(*) AS n, count(step) AS trained FROM trainer.samples").execute().await().atMost(DB).iterator().next();
        out.put("samples", s.getLong("n"));
        out.put("samples.trained", s.getLong("trained"));
        out.put("samples.with_trajectory", pool.query("SELECT count(*) FROM trainer.samples WHERE trajectory IS NOT NULL").execute().await()
                .atMost(DB).iterator().next().getLong(0));
        return out;
    }
}
