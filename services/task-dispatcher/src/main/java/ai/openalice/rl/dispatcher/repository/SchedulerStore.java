package ai.openalice.rl.dispatcher.repository;

import ai.openalice.rl.servicekit.Sql;
import io.vertx.core.json.JsonObject;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Map;
import java.util.Optional;

/**
 * The scheduler's own row ({@code dispatcher.scheduler}: policy version, round, the trainer's
 * terms), the database-wide lock one scheduling pass holds, and the fair-share choice of the next
 * training task with its counters ({@code task_state.groups}, {@code sources.groups}).
 */
@ApplicationScoped
public class SchedulerStore {
    private static final long LOCK = 0x616c696365L; // "alice"

    /** Every task's state {@code s} beside its cohort's {@code c} (none: nulls). */
    public static final String TASKS_WITH_COHORTS = "dispatcher.task_state s LEFT JOIN dispatcher.cohort_state c ON c.cohort = s.cohort";

    /** Whether the curriculum benches task {@code s} at round {@code $1}: its own bench, or its cohort's. */
    public static final String BENCHED = "(s.skip_until > $1 OR COALESCE(c.skip_until, 0) > $1)";

    /** Where the scheduler stands: the newest policy version it knows and its round (one per training group). */
    public record Clock(long policyVersion, long round) {}

    /** The training task chosen next and the source it came from. */
    public record Pick(String taskId, int version, String source) {}

    /** Takes the scheduling lock for this transaction; false when another dispatcher holds it. */
    public boolean tryLock(Sql sql) {
        return sql.one("SELECT pg_try_advisory_xact_lock($1) AS ok", LOCK).orElseThrow().getBoolean("ok");
    }

    /** The scheduler's clock; {@code forUpdate} holds its row to the end of the transaction. */
    public Clock clock(Sql sql, boolean forUpdate) {
        var r = sql.one("SELECT policy_version, round FROM dispatcher.scheduler WHERE id = 1" + (forUpdate ? " FOR UPDATE" : "")).orElseThrow();
        return new Clock(r.getLong("policy_version"), r.getLong("round"));
    }

    /** Moves the policy version forward to {@code version} (never back); returns the version now current. */
    public long advancePolicy(Sql sql, long version) {
        return sql.one("UPDATE dispatcher.scheduler SET policy_version = GREATEST(policy_version, $1) WHERE id = 1 RETURNING policy_version", version)
                .orElseThrow().getLong("policy_version");
    }

    /** The trainer's terms as last stored (JSON), if any were. */
    public Optional<String> storedTerms(Sql sql) {
        JsonObject json = sql.one("SELECT trainer_terms FROM dispatcher.scheduler WHERE id = 1").orElseThrow().getJsonObject("trainer_terms");
        return Optional.ofNullable(json).map(JsonObject::encode);
    }

    /** Stores the terms stated at {@code version}, unless a newer version stated others. */
    public void storeTerms(Sql sql, String json, long version) {
        sql.query("UPDATE dispatcher.scheduler SET trainer_terms = $1, terms_version = $2 WHERE id = 1 AND (terms_version IS NULL OR terms_version <= $2)",
                new JsonObject(json), version);
    }

    /**
     * The next training task at {@code round}: tasks the curriculum has not benched first; among
     * them, the source furthest below its weighted fair share (groups ÷ weight, weight 1 when not
     * listed), then the task furthest below its own share (groups ÷ priority), then a stable hash.
     */
    public Optional<Pick> pickTraining(Sql sql, long round, Map<String, Double> sourceWeights) {
        var names = new ArrayList<String>();
        var weights = new ArrayList<Double>();
        sourceWeights.forEach((k, v) -> {
            names.add(k);
            weights.add(v);
        });
        return sql.one("""
                SELECT s.task_id, s.version, s.source FROM %s JOIN dispatcher.sources src ON src.source = s.source
                 WHERE s.split = 'train'
                 ORDER BY %s,
                          src.groups / COALESCE((SELECT w.weight FROM unnest($2::text[], $3::float8[]) AS w(name, weight) WHERE w.name = s.source), 1.0),
                          s.groups::float8 / s.priority, md5(s.task_id), s.task_id
                 LIMIT 1""".formatted(TASKS_WITH_COHORTS, BENCHED), round, names.toArray(String[]::new), weights.toArray(Double[]::new))
                .map(r -> new Pick(r.getString("task_id"), r.getInteger("version"), r.getString("source")));
    }

    /** Counts a training group for the task, its source and the round. */
    public void countTrainingGroup(Sql sql, Pick pick) {
        sql.query("UPDATE dispatcher.task_state SET groups = groups + 1 WHERE task_id = $1", pick.taskId());
        sql.query("UPDATE dispatcher.sources SET groups = groups + 1 WHERE source = $1", pick.source());
        sql.query("UPDATE dispatcher.scheduler SET round = round + 1 WHERE id = 1");
    }
}
