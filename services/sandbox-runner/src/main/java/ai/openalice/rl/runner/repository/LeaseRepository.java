package ai.openalice.rl.runner.repository;

import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.servicekit.Outbox;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Collection;
import java.util.UUID;

/**
 * Leases on rollouts: one runner runs a rollout at a time; its heartbeat keeps the lease; a lease
 * whose heartbeat went stale (the runner died) is taken over; a published rollout is never run
 * again. The result and its event are written in the lease's transaction (the outbox).
 */
@ApplicationScoped
public class LeaseRepository {
    /** The runner\'s outbox (schema {@code runner}). */
    public static final Outbox OUTBOX = new Outbox("runner");
    static final Duration DB = Duration.ofSeconds(30);

    @Inject
    Pool pool;

    /** True when {@code owner} now holds the lease on {@code rolloutId}. */
    public boolean claim(UUID rolloutId, int attempt, String owner, Duration timeout) {
        var rows = pool.preparedQuery("""
                INSERT INTO runner.leases (rollout_id, attempt, owner, heartbeat_at, state) VALUES ($1, $2, $3, now(), 'running')
                ON CONFLICT (rollout_id) DO UPDATE SET owner = EXCLUDED.owner, attempt = EXCLUDED.attempt, heartbeat_at = now()
                  WHERE runner.leases.state = 'running'
                    AND (runner.leases.owner = EXCLUDED.owner OR runner.leases.heartbeat_at < now() - make_interval(secs => $4))
                RETURNING rollout_id""")
                .execute(Tuple.of(rolloutId, attempt, owner, (double) timeout.toMillis() / 1000.0)).await().atMost(DB);
        return rows.rowCount() == 1;
    }

    /** Renews {@code owner}'s leases. */
    public void heartbeat(String owner, Collection<UUID> rollouts) {
        if (rollouts.isEmpty()) {
            return;
        }
        pool.preparedQuery("UPDATE runner.leases SET heartbeat_at = now() WHERE owner = $1 AND state = 'running' AND rollout_id = ANY($2)")
                .execute(Tuple.of(owner, rollouts.toArray(UUID[]::new))).await().atMost(DB);
    }

    /** Marks the rollout published and queues its event, in one transaction; false when the lease was lost meanwhile. */
    public boolean publish(UUID rolloutId, String owner, Envelope<?> event) {
        return pool.withTransaction(conn -> conn
                .preparedQuery("UPDATE runner.leases SET state = 'published' WHERE rollout_id = $1 AND owner = $2 AND state = 'running'")
                .execute(Tuple.of(rolloutId, owner))
                .chain(updated -> updated.rowCount() != 1 ? Uni.createFrom().item(false)
                        : OUTBOX.enqueue(conn, event).replaceWith(true)))
                .await().atMost(DB);
    }

    /** Gives back {@code owner}'s unfinished leases (graceful shutdown: another runner may take them at once). */
    public int release(String owner) {
        return pool.preparedQuery("DELETE FROM runner.leases WHERE owner = $1 AND state = 'running'").execute(Tuple.of(owner))
                .await().atMost(DB).rowCount();
    }
}
