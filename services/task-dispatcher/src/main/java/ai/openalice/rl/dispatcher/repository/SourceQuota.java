package ai.openalice.rl.dispatcher.repository;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.servicekit.Sql;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Optional;

/**
 * Per-source limits on submissions over REST ({@code dispatcher.quota.*}), checked before a request
 * is taken: a source may have at most {@code pending-tasks} training tasks never scheduled yet, and
 * add at most {@code submissions-per-hour} tasks (versions) over the last 60 minutes. Every line of
 * a request counts against them (an unchanged resubmission too: the check comes before intake).
 * Tasks from Kafka are not limited here (a publisher on the broker is limited by its ACLs).
 */
@ApplicationScoped
public class SourceQuota {
    static final Duration HOUR = Duration.ofHours(1);
    static final long PENDING_RETRY_S = 60;

    @Inject
    Pool pool;

    @Inject
    DispatcherConfig config;

    /** Why a request is refused and when to try again. */
    public record Refusal(String detail, long retryAfterSeconds) {}

    public Optional<Refusal> check(String source, int incoming) {
        var quota = config.quota();
        return Sql.transaction(pool, sql -> {
            if (quota.pendingTasks() > 0) {
                long pending = sql.one("SELECT count(*) AS n FROM dispatcher.task_state WHERE source = $1 AND groups = 0 AND split = 'train'", source)
                        .map(r -> r.getLong("n")).orElse(0L);
                if (pending + incoming > quota.pendingTasks()) {
                    return Optional.of(new Refusal("source '" + source + "' has " + pending + " training task(s) not yet scheduled; " + incoming
                            + " more would pass dispatcher.quota.pending-tasks (" + quota.pendingTasks() + ")", PENDING_RETRY_S));
                }
            }
            if (quota.submissionsPerHour() > 0) {
                var row = sql.one("SELECT count(*) AS n, min(created_at) AS oldest FROM dispatcher.tasks"
                        + " WHERE source = $1 AND created_at > now() - interval '1 hour'", source).orElseThrow();
                long added = row.getLong("n");
                if (added + incoming > quota.submissionsPerHour()) {
                    return Optional.of(new Refusal("source '" + source + "' added " + added + " task(s) in the last hour; " + incoming
                            + " more would pass dispatcher.quota.submissions-per-hour (" + quota.submissionsPerHour() + ")",
                            retryAfter(row.getOffsetDateTime("oldest"), OffsetDateTime.now())));
                }
            }
            return Optional.<Refusal>empty();
        });
    }

    /** Seconds until the oldest submission of the window leaves it (at least 1; the whole hour when none is in it). */
    static long retryAfter(OffsetDateTime oldest, OffsetDateTime now) {
        if (oldest == null) {
            return HOUR.toSeconds();
        }
        long s = (long) Math.ceil(Duration.between(now, oldest.plus(HOUR)).toMillis() / 1000.0);
        return Math.max(1, Math.min(HOUR.toSeconds(), s));
    }
}
