package ai.openalice.rl.dispatcher.repository;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.TaskAccepted;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskParser;
import ai.openalice.rl.events.task.TaskVersioning;
import ai.openalice.rl.servicekit.Sql;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Tasks by version (announced on tasks.accepted), and the one row per task the scheduler works from. */
@ApplicationScoped
public class TaskStore {
    static final Duration DB = Duration.ofSeconds(30);
    /** The outbox channel of {@code tasks.accepted}. */

    @Inject
    Pool pool;

    @Inject
    DispatcherConfig config;

    /** What storing a task did. */
    public sealed interface Stored {
        int version();

        /** A new task, or a new version of one. */
        record Added(int version) implements Stored {}

        /** The same content as the latest version: nothing changed. */
        record Unchanged(int version) implements Stored {}

        /** Different content under an existing id, without asking for a new version. */
        record Conflict(int version) implements Stored {}
    }

    /** Stores a validated task under the versioning rule, in a transaction of its own. */
    public Stored store(Task task, String source, int priority, boolean newVersion) {
        return Sql.transaction(pool, sql -> store(sql, task, source, priority, newVersion));
    }

    /**
     * The same within a caller's transaction (a batch of Kafka records is one transaction). A version
     * added is announced on {@code tasks.accepted} from the outbox in that transaction: the dispatcher
     * is the one authority on task versions, and the verifier and rubric-prm keep what it announces.
     */
    public Stored store(Sql sql, Task task, String source, int priority, boolean newVersion) {
        String hash = TaskVersioning.contentHash(task.raw());
        String id = task.instanceId();
        Row latest = sql.one("SELECT version, content_hash FROM dispatcher.tasks WHERE task_id = $1 ORDER BY version DESC LIMIT 1 FOR UPDATE", id)
                .orElse(null);
        var d = TaskVersioning.decide(latest == null ? null : latest.getInteger("version"), latest == null ? null : latest.getString("content_hash"),
                hash, newVersion);
        return switch (d) {
            case TaskVersioning.Decision.Unchanged u -> new Stored.Unchanged(u.version());
            case TaskVersioning.Decision.Conflict c -> new Stored.Conflict(c.latestVersion());
            case TaskVersioning.Decision.Store st -> {
                sql.query("INSERT INTO dispatcher.tasks (task_id, version, content_hash, body, split, source, announced)"
                        + " VALUES ($1, $2, $3, $4, $5, $6, true)", id, st.version(), hash, new JsonObject(task.raw().toString()), task.split().wire(), source);
                announce(sql, new TaskAccepted(id, st.version(), hash, task.raw()));
                sql.query("""
                        INSERT INTO dispatcher.task_state (task_id, version, split, source, priority, cohort) VALUES ($1, $2, $3, $4, $5, $6)
                        ON CONFLICT (task_id) DO UPDATE SET version = EXCLUDED.version, split = EXCLUDED.split,
                          source = EXCLUDED.source, priority = EXCLUDED.priority, cohort = EXCLUDED.cohort, streak = 0, skip_until = 0""",
                        id, st.version(), task.split().wire(), source, priority, cohort(task));
                // a new source joins at the least-served source's count: fair from now on, not owed the past
                sql.query("INSERT INTO dispatcher.sources (source, groups) SELECT $1, COALESCE(min(groups), 0) FROM dispatcher.sources ON CONFLICT DO NOTHING",
                        source);
                yield new Stored.Added(st.version());
            }
        };
    }

    /** The task's curriculum cohort: the configured field's value when it is a non-blank string or a number, else none. */
    String cohort(Task task) {
        var field = config.curriculumCohort();
        if (field.isEmpty()) {
            return null;
        }
        var v = task.raw().get(field.get());
        return v != null && (v.isTextual() || v.isNumber()) && !v.asText().isBlank() ? v.asText() : null;
    }

    private static void announce(Sql sql, TaskAccepted accepted) {
        var env = Envelope.of(accepted);
        GroupStore.OUTBOX.enqueue(sql, env);
    }

    /**
     * Announces up to {@code limit} versions stored before tasks.accepted existed (a database from an
     * earlier release); returns how many. Several instances share the work ({@code SKIP LOCKED}).
     */
    public int announceUnannounced(int limit) {
        return Sql.transaction(pool, sql -> {
            int n = 0;
            for (Row r : sql.query("SELECT task_id, version, content_hash, body FROM dispatcher.tasks WHERE NOT announced"
                    + " ORDER BY task_id, version LIMIT $1 FOR UPDATE SKIP LOCKED", limit)) {
                var body = (ObjectNode) readJson(r.getString("task_id"), r.getJsonObject("body"));
                announce(sql, new TaskAccepted(r.getString("task_id"), r.getInteger("version"), r.getString("content_hash"), body));
                sql.query("UPDATE dispatcher.tasks SET announced = true WHERE task_id = $1 AND version = $2", r.getString("task_id"), r.getInteger("version"));
                n++;
            }
            return n;
        });
    }

    /** A task at one version, with the content hash it was accepted under (rollout events carry both). */
    public record Versioned(Task task, int version, String contentHash) {}

    /** Parsed tasks by id and version (a version never changes): most recent 4,096. */
    private final Map<String, Versioned> parsed = Collections.synchronizedMap(new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Versioned> eldest) {
            return size() > 4096;
        }
    });

    /** The task at a version, parsed. */
    public Optional<Versioned> task(String taskId, int version) {
        String key = version + ":" + taskId;
        Versioned cached = parsed.get(key);
        if (cached != null) {
            return Optional.of(cached);
        }
        var found = load(taskId, version);
        found.ifPresent(t -> parsed.put(key, t));
        return found;
    }

    private Optional<Versioned> load(String taskId, int version) {
        var rows = pool.preparedQuery("SELECT content_hash, body FROM dispatcher.tasks WHERE task_id = $1 AND version = $2")
                .execute(Tuple.of(taskId, version)).await().atMost(DB);
        if (!rows.iterator().hasNext()) {
            return Optional.empty();
        }
        Row r = rows.iterator().next();
        return Optional.of(new Versioned(parse(taskId, r.getJsonObject("body")), version, r.getString("content_hash")));
    }

    /** The latest version of a task, if known. */
    public Optional<Integer> latestVersion(String taskId) {
        var rows = pool.preparedQuery("SELECT version FROM dispatcher.task_state WHERE task_id = $1").execute(Tuple.of(taskId)).await().atMost(DB);
        return rows.iterator().hasNext() ? Optional.of(rows.iterator().next().getInteger("version")) : Optional.empty();
    }

    static Task parse(String taskId, JsonObject body) {
        return switch (new TaskParser(Path.of("/")).parse(readJson(taskId, body))) {
            case TaskParser.Result.Valid v -> v.task();
            case TaskParser.Result.Invalid i -> throw new IllegalStateException("stored task " + taskId + " no longer parses: " + i.errors());
        };
    }

    private static JsonNode readJson(String taskId, JsonObject body) {
        try {
            return EventCodec.mapper().readTree(body.encode());
        } catch (IOException e) {
            throw new IllegalStateException("stored task " + taskId + " is not JSON", e);
        }
    }

    /** {@code GET /tasks/{id}}: versions, scheduling and curriculum state (the task's and its cohort's), the recent solve-rate history. */
    public record TaskView(String taskId, int version, String split, String source, int priority, long groups, Bench curriculum,
            @JsonInclude(JsonInclude.Include.NON_NULL) CohortView cohort,
            Double lastSolveRate, List<VersionView> versions, List<SolveView> solveHistory) {}

    /** Uniform groups in a row, and the first round it may be scheduled again. */
    public record Bench(int streak, long skipUntilRound) {}

    /** The cohort's curriculum state (only its name before its first group). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CohortView(String cohort, Integer streak, Long skipUntilRound, Long groups, Double lastSolveRate) {}

    public record VersionView(int version, String source, String contentHash, String createdAt) {}

    public record SolveView(String groupId, long policyVersion, int solved, int valid, String at) {}

    public Optional<TaskView> describe(String taskId) {
        return Sql.transaction(pool, sql -> sql.one("SELECT * FROM dispatcher.task_state WHERE task_id = $1", taskId).map(s -> {
            String cohort = s.getString("cohort");
            CohortView cohortView = cohort == null ? null
                    : sql.one("SELECT * FROM dispatcher.cohort_state WHERE cohort = $1", cohort)
                            .map(r -> new CohortView(cohort, r.getInteger("streak"), r.getLong("skip_until"), r.getLong("groups"), r.getDouble("last_solve_rate")))
                            .orElse(new CohortView(cohort, null, null, null, null));
            var versions = new ArrayList<VersionView>();
            sql.query("SELECT version, source, content_hash, created_at FROM dispatcher.tasks WHERE task_id = $1 ORDER BY version", taskId)
                    .forEach(r -> versions.add(new VersionView(r.getInteger("version"), r.getString("source"), r.getString("content_hash"),
                            r.getOffsetDateTime("created_at").toString())));
            var history = new ArrayList<SolveView>();
            sql.query("SELECT * FROM dispatcher.solve_history WHERE task_id = $1 ORDER BY at DESC LIMIT 50", taskId)
                    .forEach(r -> history.add(new SolveView(r.getUUID("group_id").toString(), r.getLong("policy_version"), r.getInteger("solved"),
                            r.getInteger("valid"), r.getOffsetDateTime("at").toString())));
            return new TaskView(taskId, s.getInteger("version"), s.getString("split"), s.getString("source"), s.getInteger("priority"),
                    s.getLong("groups"), new Bench(s.getInteger("streak"), s.getLong("skip_until")), cohortView, s.getDouble("last_solve_rate"),
                    versions, history);
        }));
    }
}
