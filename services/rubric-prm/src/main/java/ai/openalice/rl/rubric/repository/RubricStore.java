package ai.openalice.rl.rubric.repository;

import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.servicekit.TaskReplica;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/** rubric-prm's tables: tasks by version (a replica of tasks.accepted), rollouts waiting for their verdict, one score per rollout (with its outbox row). */
@ApplicationScoped
public class RubricStore {
    static final Duration DB = Duration.ofSeconds(30);

    @Inject
    Pool pool;

    private TaskReplica replica;

    @jakarta.annotation.PostConstruct
    void init() {
        replica = new TaskReplica(pool, "rubric");
    }

    /** The dispatcher's task versions, as {@code tasks.accepted} carries them. */
    public TaskReplica tasks() {
        return replica;
    }

    /** The task (raw JSON and parsed) at a version. */
    public Optional<Task> task(String taskId, int version) {
        return replica.find(taskId, version).map(TaskReplica.Replicated::task);
    }

    public void storeRollout(RolloutCompleted r) {
        try {
            String trajectory = EventCodec.mapper().writeValueAsString(r.trajectory());
            pool.preparedQuery("INSERT INTO rubric.rollouts (rollout_id, task_id, task_version, group_size, termination, patch, trajectory)"
                    + " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING")
                    .execute(Tuple.from(new Object[] {r.rolloutId(), r.taskId(), r.taskVersion(), r.groupSize(), r.termination().wire(), r.patch(),
                            new JsonObject(trajectory)})).await().atMost(DB);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What the scorer needs of a rollout. */
    public record StoredRollout(UUID rolloutId, int taskVersion, int groupSize, Termination termination, String patch, TrajectoryRef trajectory) {}

    public Optional<StoredRollout> rollout(UUID rolloutId) {
        var rows = pool.preparedQuery("SELECT * FROM rubric.rollouts WHERE rollout_id = $1").execute(Tuple.of(rolloutId)).await().atMost(DB);
        if (!rows.iterator().hasNext()) {
            return Optional.empty();
        }
        Row r = rows.iterator().next();
        try {
            var ref = EventCodec.mapper().readValue(r.getJsonObject("trajectory").encode(), TrajectoryRef.class);
            return Optional.of(new StoredRollout(rolloutId, r.getInteger("task_version"), r.getInteger("group_size"),
                    Termination.of(r.getString("termination")), r.getString("patch"), ref));
        } catch (java.io.IOException e) {
            throw new IllegalStateException("stored trajectory of " + rolloutId + " is unreadable", e);
        }
    }

    /** A model-written rubric kept for a task version. */
    public Optional<com.fasterxml.jackson.databind.JsonNode> rubric(String taskId, int version) {
        var rows = pool.preparedQuery("SELECT body FROM rubric.rubrics WHERE task_id = $1 AND task_version = $2")
                .execute(Tuple.of(taskId, version)).await().atMost(DB);
        if (!rows.iterator().hasNext()) {
            return Optional.empty();
        }
        try {
            return Optional.of(EventCodec.mapper().readTree(rows.iterator().next().getJsonObject("body").encode()));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Keeps a rubric for a task version (the first one written wins: every rollout of the version is scored alike). */
    public void saveRubric(String taskId, int version, String source, com.fasterxml.jackson.databind.JsonNode body) {
        pool.preparedQuery("INSERT INTO rubric.rubrics (task_id, task_version, source, body) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING")
                .execute(Tuple.of(taskId, version, source, new JsonObject(body.toString()))).await().atMost(DB);
    }

    public boolean scored(UUID rolloutId) {
        return pool.preparedQuery("SELECT 1 FROM rubric.scores WHERE rollout_id = $1").execute(Tuple.of(rolloutId)).await().atMost(DB)
                .iterator().hasNext();
    }

    /** Stores the score and queues its event; false when the rollout was already scored (a redelivery). */
    public boolean saveScore(UUID rolloutId, boolean masked, Double reward, Double sPrm, Integer rExec, String breakdownJson, String channel,
            String key, byte[] event) {
        return pool.withTransaction(conn -> conn
                .preparedQuery("INSERT INTO rubric.scores (rollout_id, masked, reward, s_prm, r_exec, breakdown) VALUES ($1, $2, $3, $4, $5, $6)"
                        + " ON CONFLICT DO NOTHING")
                .execute(Tuple.from(new Object[] {rolloutId, masked, reward, sPrm, rExec, new io.vertx.core.json.JsonArray(breakdownJson)}))
                .chain(ins -> ins.rowCount() == 0 ? io.smallrye.mutiny.Uni.createFrom().item(false)
                        : conn.preparedQuery("INSERT INTO rubric.outbox (topic, event_key, payload) VALUES ($1, $2, $3)")
                                .execute(Tuple.of(channel, key, Buffer.buffer(event))).replaceWith(true)))
                .await().atMost(DB);
    }
}
