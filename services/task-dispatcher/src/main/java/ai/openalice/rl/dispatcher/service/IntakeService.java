package ai.openalice.rl.dispatcher.service;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.dispatcher.model.IntakeOutcome;
import ai.openalice.rl.dispatcher.repository.GroupStore;
import ai.openalice.rl.dispatcher.repository.TaskStore;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.TaskRejected;
import ai.openalice.rl.events.TaskSubmitted;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.task.FieldError;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskParser;
import ai.openalice.rl.servicekit.DatabaseUnavailableException;
import ai.openalice.rl.servicekit.OutboxRelay;
import ai.openalice.rl.servicekit.Sql;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jboss.logging.Logger;

/**
 * Task intake from Kafka and REST. Every task is validated field by field; a rejected one goes to
 * {@code tasks.rejected} with the payload as received and every reason (Kafka) or back to the
 * caller (REST). A resubmitted identical task changes nothing; the same id with different content
 * is a conflict unless the publisher asks for a new version. Every version added, from either
 * door, is announced on {@code tasks.accepted} in the transaction that stores it ({@link TaskStore}).
 */
@ApplicationScoped
public class IntakeService {
    private static final Logger LOG = Logger.getLogger(IntakeService.class);

    @Inject
    TaskStore store;

    @Inject
    DispatcherConfig config;

    @Inject
    MeterRegistry metrics;

    @Inject
    Pool pool;

    /**
     * A batch of records from {@code tasks.submitted}: stored, and rejections queued, in one
     * transaction. When the batch fails, each record is tried on its own, and one the database
     * refuses by itself (e.g. a NUL character jsonb cannot hold) is rejected with the database's
     * reason — one bad record never stops the intake. (With the database down, the rejection
     * fails too and the batch is redelivered.)
     */
    public void fromKafka(List<ConsumerRecord<String, byte[]>> all) {
        // releases before tasks.accepted announced REST tasks on tasks.submitted; reading those back would
        // re-validate every REST task, and re-add it if it was deleted in between
        var records = all.stream().filter(r -> !OutboxRelay.sentBy("dispatcher", r)).toList();
        if (records.isEmpty()) {
            return;
        }
        try {
            storeBatch(records);
        } catch (RuntimeException batchFailed) {
            for (var rec : records) {
                try {
                    storeBatch(List.of(rec));
                } catch (RuntimeException e) {
                    if (DatabaseUnavailableException.isOutage(e)) {
                        throw e; // not the task's fault: the record stays uncommitted and is read again after the restart, not rejected
                    }
                    LOG.warnf("task record %s-%d@%d cannot be stored: %s", rec.topic(), rec.partition(), rec.offset(), e.getMessage());
                    Sql.transaction(pool, sql -> {
                        reject(sql, new TaskRejected("unknown", rec.key(), List.of(new FieldError("$", FieldError.Code.INVALID_VALUE,
                                "the task could not be stored: " + e.getMessage())), new String(rec.value(), StandardCharsets.UTF_8),
                                TaskRejected.Origin.kafka(rec.topic(), rec.partition(), rec.offset())));
                        return null;
                    });
                }
            }
        }
    }

    private void storeBatch(List<ConsumerRecord<String, byte[]>> records) {
        Sql.transaction(pool, sql -> {
            for (var rec : records) {
                var origin = TaskRejected.Origin.kafka(rec.topic(), rec.partition(), rec.offset());
                switch (EventCodec.<TaskSubmitted>decode(Topic.TASKS_SUBMITTED, rec.value())) {
                    case EventCodec.Decoded.Malformed<TaskSubmitted> m -> reject(sql, new TaskRejected("unknown", null,
                            List.of(new FieldError("$", FieldError.Code.MALFORMED_JSON, m.reason())), new String(rec.value(), StandardCharsets.UTF_8),
                            origin));
                    case EventCodec.Decoded.Ok<TaskSubmitted> ok -> {
                        TaskSubmitted t = ok.envelope().payload();
                        var outcome = accept(t.task(), t.source(), t.priority(), t.newVersion(), null, sql);
                        if (outcome.refused()) {
                            reject(sql, new TaskRejected(t.source(), outcome.taskId(), outcome.errors(), String.valueOf(t.task()), origin));
                        }
                    }
                }
            }
            return null;
        });
    }

    /** {@code POST /tasks}: one task (a JSON object) or a JSONL body, line by line. */
    public List<IntakeOutcome> fromRest(String body, String source, Integer priority, boolean newVersion) {
        var out = new ArrayList<IntakeOutcome>();
        String trimmed = body.strip();
        if (trimmed.startsWith("{") && single(trimmed)) {
            out.add(parseAndAccept(trimmed, null, source, priority, newVersion));
            return out;
        }
        String[] lines = body.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].isBlank()) {
                out.add(parseAndAccept(lines[i], i + 1, source, priority, newVersion));
            }
        }
        if (out.isEmpty()) {
            out.add(new IntakeOutcome.Rejected(null, null, List.of(new FieldError("$", FieldError.Code.MISSING, "the body holds no task"))));
        }
        return out;
    }

    /** How many tasks a {@code POST /tasks} body holds as {@link #fromRest} reads it (the lines of JSONL, or one). */
    public static int taskCount(String body) {
        String trimmed = body.strip();
        if (trimmed.startsWith("{") && single(trimmed)) {
            return 1;
        }
        return (int) body.lines().filter(l -> !l.isBlank()).count();
    }

    private static boolean single(String text) {
        try {
            EventCodec.mapper().readerFor(JsonNode.class).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .readValue(text);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private IntakeOutcome parseAndAccept(String text, Integer line, String source, Integer priority, boolean newVersion) {
        JsonNode node;
        try {
            node = EventCodec.mapper().readTree(text);
        } catch (JsonProcessingException e) {
            metrics.counter("dispatcher_tasks_total", "outcome", "rejected").increment();
            return new IntakeOutcome.Rejected(line, null, List.of(new FieldError("$", FieldError.Code.MALFORMED_JSON,
                    "not JSON: " + e.getOriginalMessage())));
        }
        return accept(node, source, priority, newVersion, line, null);
    }

    /** Validates and stores; with {@code sql} inside the caller's transaction, else in its own. */
    private IntakeOutcome accept(JsonNode node, String source, Integer priority, boolean newVersion, Integer line, Sql sql) {
        if (priority != null && priority < 1) {
            metrics.counter("dispatcher_tasks_total", "outcome", "rejected").increment();
            String id = node != null && node.path("instance_id").isTextual() ? node.get("instance_id").asText() : null; // the rejection names its task
            return new IntakeOutcome.Rejected(line, id, List.of(new FieldError("priority", FieldError.Code.INVALID_VALUE,
                    "must be at least 1, got " + priority)));
        }
        var parsed = new TaskParser(Path.of("/")).parse(node);
        if (parsed instanceof TaskParser.Result.Invalid inv) {
            metrics.counter("dispatcher_tasks_total", "outcome", "rejected").increment();
            return new IntakeOutcome.Rejected(line, inv.taskId(), inv.errors());
        }
        Task task = ((TaskParser.Result.Valid) parsed).task();
        String tooLarge = tooLarge(node, config.maxTaskBytes());
        if (tooLarge != null) {
            metrics.counter("dispatcher_tasks_total", "outcome", "rejected").increment();
            return new IntakeOutcome.Rejected(line, task.instanceId(), List.of(new FieldError("$", FieldError.Code.INVALID_VALUE, tooLarge)));
        }
        int p = priority == null ? 1 : priority;
        TaskStore.Stored stored;
        try {
            stored = sql != null ? store.store(sql, task, source, p, newVersion) : store.store(task, source, p, newVersion);
        } catch (RuntimeException e) {
            String why = dataError(e);
            if (sql != null || why == null) {
                throw e;
            }
            metrics.counter("dispatcher_tasks_total", "outcome", "rejected").increment();
            return new IntakeOutcome.Rejected(line, task.instanceId(), List.of(new FieldError("$", FieldError.Code.INVALID_VALUE,
                    "the task could not be stored: " + why)));
        }
        return switch (stored) {
            case TaskStore.Stored.Added a -> {
                metrics.counter("dispatcher_tasks_total", "outcome", "added").increment();
                LOG.infof("task %s v%d from %s (%s)", task.instanceId(), a.version(), source, task.split().wire());
                yield new IntakeOutcome.Added(line, task.instanceId(), a.version());
            }
            case TaskStore.Stored.Unchanged u -> {
                metrics.counter("dispatcher_tasks_total", "outcome", "unchanged").increment();
                yield new IntakeOutcome.Unchanged(line, task.instanceId(), u.version());
            }
            case TaskStore.Stored.Conflict c -> {
                metrics.counter("dispatcher_tasks_total", "outcome", "conflict").increment();
                yield new IntakeOutcome.Conflict(line, task.instanceId(), c.version());
            }
        };
    }

    /** Why a task is too large to travel on Kafka (its JSON over {@code limit} bytes), or null. */
    static String tooLarge(JsonNode task, int limit) {
        int bytes;
        try {
            bytes = EventCodec.mapper().writeValueAsBytes(task).length;
        } catch (JsonProcessingException e) {
            return "the task cannot be written as JSON: " + e.getOriginalMessage();
        }
        return bytes <= limit ? null : "the task is " + bytes + " bytes of JSON, over dispatcher.max-task-bytes (" + limit
                + "): it travels whole in Kafka records (tasks.accepted, rollouts.requested); keep large files in the repository, not the task";
    }

    /** The payload a rejection carries back: as received, cut to its first 64 KiB when larger (the reasons say what was wrong). */
    static String cut(String payload) {
        int max = 64 * 1024;
        return payload == null || payload.length() <= max ? payload
                : payload.substring(0, max) + "…(cut: " + payload.length() + " characters in all)";
    }

    /** The database's message when it refused the data itself (SQLSTATE class 22, e.g. a NUL in jsonb), else null. */
    static String dataError(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof PgException pg && pg.getSqlState() != null && pg.getSqlState().startsWith("22")) {
                return pg.getErrorMessage() + (pg.getDetail() == null ? "" : " (" + pg.getDetail() + ")");
            }
        }
        return null;
    }

    private void reject(Sql sql, TaskRejected r) {
        var env = Envelope.of(new TaskRejected(r.source(), r.taskId(), r.reasons(), cut(r.originalPayload()), r.origin()));
        GroupStore.OUTBOX.enqueue(sql, env);
        LOG.warnf("task %s from %s rejected: %s", r.taskId(), r.source(), r.reasons());
    }
}
