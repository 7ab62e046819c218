package ai.openalice.rl.servicekit;

import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.TaskAccepted;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskParser;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * A service's replica of the task versions the task-dispatcher accepted, from {@code tasks.accepted},
 * in {@code <schema>.tasks(task_id, version, content_hash, body)} (read through the {@link Inbox}). The replica never decides a
 * version: it stores what the dispatcher announced, by (taskId, version), and the dispatcher's word
 * wins over whatever the row held before (rows a release before tasks.accepted derived itself).
 */
public final class TaskReplica {
    static final Duration DB = Duration.ofSeconds(30);

    private final Pool pool;
    private final String schema;

    public TaskReplica(Pool pool, String schema) {
        this.pool = pool;
        this.schema = schema;
    }

    /** A task version as the replica holds it: parsed, with the content hash the dispatcher gave it. */
    public record Replicated(String contentHash, Task task) {}

    /** Stores a task version; a redelivery changes nothing, and other content under the same version is replaced by the dispatcher's. */
    public void upsert(TaskAccepted a) {
        pool.preparedQuery("INSERT INTO " + schema + ".tasks AS t (task_id, version, content_hash, body) VALUES ($1, $2, $3, $4)"
                        + " ON CONFLICT (task_id, version) DO UPDATE SET content_hash = EXCLUDED.content_hash, body = EXCLUDED.body"
                        + " WHERE t.content_hash <> EXCLUDED.content_hash")
                .execute(Tuple.of(a.taskId(), a.version(), a.contentHash(), new JsonObject(a.task().toString()))).await().atMost(DB);
    }

    /**
     * The task at {@code version}, when it has arrived. A stored body that no longer parses (it was
     * accepted by another release's parser) is an error naming the task and the fields, never an absent task.
     */
    public Optional<Replicated> find(String taskId, int version) {
        var rows = pool.preparedQuery("SELECT content_hash, body FROM " + schema + ".tasks WHERE task_id = $1 AND version = $2")
                .execute(Tuple.of(taskId, version)).await().atMost(DB);
        if (!rows.iterator().hasNext()) {
            return Optional.empty();
        }
        var row = rows.iterator().next();
        try {
            var body = EventCodec.mapper().readTree(row.getJsonObject("body").encode());
            // Tasks on the wire carry absolute paths (publishers resolve them), so the base folder is "/".
            return switch (new TaskParser(Path.of("/")).parse(body)) {
                case TaskParser.Result.Valid v -> Optional.of(new Replicated(row.getString("content_hash"), v.task()));
                case TaskParser.Result.Invalid i -> throw new IllegalStateException(
                        "stored task " + taskId + " v" + version + " no longer parses: " + i.errors());
            };
        } catch (IOException e) {
            throw new IllegalStateException("stored task " + taskId + " v" + version + " is not JSON", e);
        }
    }
}
