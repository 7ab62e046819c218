package ai.openalice.rl.verifier.repository;

import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.harness.Verdict;
import ai.openalice.rl.servicekit.Outbox;
import io.vertx.core.json.JsonObject;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * One verification per rollout: a claim before the (long) run, so that a redelivered event never
 * runs the harness twice, and the verdict written with its announcing event in one transaction
 * (the outbox).
 */
@ApplicationScoped
public class VerificationRepository {
    /** The verifier\'s outbox (schema {@code verifier}). */
    public static final Outbox OUTBOX = new Outbox("verifier");
    static final Duration DB = Duration.ofSeconds(30);

    @Inject
    Pool pool;

    /** Deletes up to {@code batch} verifications finished more than {@code keep} ago; returns how many (running claims are never touched). */
    public int pruneFinished(Duration keep, int batch) {
        return pool.preparedQuery("DELETE FROM verifier.verifications WHERE rollout_id IN (SELECT rollout_id FROM verifier.verifications"
                + " WHERE state = 'done' AND finished_at < now() - make_interval(secs => $1) LIMIT $2)")
                .execute(Tuple.of((double) keep.toSeconds(), batch)).await().atMost(DB).rowCount();
    }

    /**
     * Claims the rollout for {@code owner}: true when nobody has verified it and nobody holds a
     * live claim (claims older than {@code lease} are taken over, their owner presumed dead).
     */
    public boolean claim(RolloutCompleted e, String owner, Duration lease) {
        var rows = pool.preparedQuery("""
                INSERT INTO verifier.verifications (rollout_id, task_id, task_version, group_id, policy_version, state, claimed_by, claimed_at)
                VALUES ($1, $2, $3, $4, $5, 'running', $6, now())
                ON CONFLICT (rollout_id) DO UPDATE SET claimed_by = EXCLUDED.claimed_by, claimed_at = now()
                  WHERE verifier.verifications.state = 'running'
                    AND verifier.verifications.claimed_at < now() - make_interval(secs => $7)
                RETURNING rollout_id""")
                .execute(Tuple.from(new Object[] {e.rolloutId(), e.taskId(), e.ref().taskVersion(), e.groupId(), e.policyVersion(), owner,
                        (double) lease.toSeconds()}))
                .await().atMost(DB);
        return rows.rowCount() == 1;
    }

    /**
     * Stores the verdict and its event (for {@code channel}, keyed by {@code key}) atomically.
     * Fails when the claim was lost meanwhile, so that only one verdict is ever announced.
     */
    public void complete(UUID rolloutId, String owner, Verdict v, Envelope<?> event) {
        var verdict = new JsonObject(Map.of("status", v.status().wire(), "reason", v.reason() == null ? "" : v.reason(),
                "runs", v.runs(), "durationMs", v.durationMs()));
        pool.withTransaction(conn -> conn.preparedQuery("""
                        UPDATE verifier.verifications SET state = 'done', status = $3, resolved = $4, verdict = $5, finished_at = now()
                        WHERE rollout_id = $1 AND state = 'running' AND claimed_by = $2""")
                        .execute(Tuple.of(rolloutId, owner, v.status().wire(), v.resolved(), verdict))
                        .chain(updated -> {
                            if (updated.rowCount() != 1) {
                                throw new IllegalStateException("lost the claim on rollout " + rolloutId);
                            }
                            return OUTBOX.enqueue(conn, event);
                        }))
                .await().atMost(DB);
    }

    /** Gives up a claim (the verification could not be finished), so that a redelivery may run it. */
    public void release(UUID rolloutId, String owner) {
        pool.preparedQuery("DELETE FROM verifier.verifications WHERE rollout_id = $1 AND state = 'running' AND claimed_by = $2")
                .execute(Tuple.of(rolloutId, owner)).await().atMost(DB);
    }

    /** 'running', 'done', or empty when the rollout was never seen. */
    public Optional<String> state(UUID rolloutId) {
        var rows = pool.preparedQuery("SELECT state FROM verifier.verifications WHERE rollout_id = $1").execute(Tuple.of(rolloutId))
                .await().atMost(DB);
        return rows.iterator().hasNext() ? Optional.of(rows.iterator().next().getString("state")) : Optional.empty();
    }
}
