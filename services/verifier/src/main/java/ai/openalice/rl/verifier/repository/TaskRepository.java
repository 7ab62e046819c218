package ai.openalice.rl.verifier.repository;

import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskParser;
import ai.openalice.rl.events.task.TaskVersioning;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/** The tasks the verifier has seen on tasks.submitted, versioned by the shared {@link TaskVersioning} rule. */
@ApplicationScoped
public class TaskRepository {
    static final Duration DB = Duration.ofSeconds(30);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Inject
    Pool pool;

    /** Records a submission; returns what the versioning rule decided. */
    public TaskVersioning.Decision store(String taskId, ObjectNode body, boolean newVersion) {
        String hash = TaskVersioning.contentHash(body);
        return pool.withTransaction(conn -> conn
                .preparedQuery("SELECT version, content_hash FROM verifier.tasks WHERE task_id = $1 ORDER BY version DESC LIMIT 1")
                .execute(Tuple.of(taskId))
                .chain(rows -> {
                    Row latest = rows.iterator().hasNext() ? rows.iterator().next() : null;
                    var decision = TaskVersioning.decide(latest == null ? null : latest.getInteger("version"),
                            latest == null ? null : latest.getString("content_hash"), hash, newVersion);
                    if (decision instanceof TaskVersioning.Decision.Store s) {
                        return conn.preparedQuery("INSERT INTO verifier.tasks (task_id, version, content_hash, body) VALUES ($1, $2, $3, $4)"
                                        + " ON CONFLICT DO NOTHING")
                                .execute(Tuple.of(taskId, s.version(), hash, new JsonObject(body.toString())))
                                .replaceWith(decision);
                    }
                    return io.smallrye.mutiny.Uni.createFrom().item(decision);
                }))
                .await().atMost(DB);
    }

    /** The task at {@code version}, when it has arrived. */
    public Optional<Task> find(String taskId, int version) {
        var rows = pool.preparedQuery("SELECT body FROM verifier.tasks WHERE task_id = $1 AND version = $2")
                .execute(Tuple.of(taskId, version)).await().atMost(DB);
        if (!rows.iterator().hasNext()) {
            return Optional.empty();
        }
        try {
            var body = MAPPER.readTree(rows.iterator().next().getJsonObject("body").encode());
            // Tasks on the wire carry absolute paths (publishers resolve them), so the base folder is "/".
            return switch (new TaskParser(Path.of("/")).parse(body)) {
                case TaskParser.Result.Valid v -> Optional.of(v.task());
                case TaskParser.Result.Invalid i -> Optional.empty();
            };
        } catch (java.io.IOException e) {
            throw new IllegalStateException("stored task " + taskId + " v" + version + " is not JSON", e);
        }
    }
}
