package ai.openalice.rl.rubric.repository;

import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.servicekit.Outbox;
import ai.openalice.rl.servicekit.TaskReplica;
import com.fasterxml.jackson.databind.JsonNode;
import io.smallrye.mutiny.Uni;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

/** rubric-prm's tables: tasks by version (a replica of tasks.accepted), one score per rollout (with its outbox row), model-written rubrics. */
@ApplicationScoped
public class RubricStore {
    static final Duration DB = Duration.ofSeconds(30);
    /** rubric-prm's outbox (schema {@code rubric}). */
    public static final Outbox OUTBOX = new Outbox("rubric");

    @Inject
    Pool pool;

    private TaskReplica replica;

    @PostConstruct
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

    /** A model-written rubric kept for a task version. */
    public Optional<JsonNode> rubric(String taskId, int version) {
        var rows = pool.preparedQuery("SELECT body FROM rubric.rubrics WHERE task_id = $1 AND task_version = $2")
                .execute(Tuple.of(taskId, version)).await().atMost(DB);
        if (!rows.iterator().hasNext()) {
            return Optional.empty();
        }
        try {
            return Optional.of(EventCodec.mapper().readTree(rows.iterator().next().getJsonObject("body").encode()));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Keeps a rubric for a task version (the first one written wins: every rollout of the version is scored alike). */
    public void saveRubric(String taskId, int version, String source, JsonNode body) {
        pool.preparedQuery("INSERT INTO rubric.rubrics (task_id, task_version, source, body) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING")
                .execute(Tuple.of(taskId, version, source, new JsonObject(body.toString()))).await().atMost(DB);
    }

    public boolean scored(UUID rolloutId) {
        return pool.preparedQuery("SELECT 1 FROM rubric.scores WHERE rollout_id = $1").execute(Tuple.of(rolloutId)).await().atMost(DB)
                .iterator().hasNext();
    }

    /** Stores the score and queues its event; false when the rollout was already scored (a redelivery). */
    public boolean saveScore(UUID rolloutId, boolean masked, Double reward, Double sPrm, Integer rExec, String breakdownJson,
            Envelope<?> event) {
        return pool.withTransaction(conn -> conn
                .preparedQuery("INSERT INTO rubric.scores (rollout_id, masked, reward, s_prm, r_exec, breakdown) VALUES ($1, $2, $3, $4, $5, $6)"
                        + " ON CONFLICT DO NOTHING")
                .execute(Tuple.from(new Object[] {rolloutId, masked, reward, sPrm, rExec, new JsonArray(breakdownJson)}))
                .chain(ins -> ins.rowCount() == 0 ? Uni.createFrom().item(false)
                        : OUTBOX.enqueue(conn, event).replaceWith(true)))
                .await().atMost(DB);
    }
}
