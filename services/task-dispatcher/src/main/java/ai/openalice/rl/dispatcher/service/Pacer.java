package ai.openalice.rl.dispatcher.service;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.events.RolloutRequested;
import ai.openalice.rl.servicekit.Sql;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.jboss.logging.Logger;

/**
 * How many more training groups may be requested now, asynchronous or synchronous.
 *
 * <p>A group is <em>useful</em> while it can still teach the trainer: not dropped, and not finished
 * with no valid member, none solved, or — in groups of more than one — all solved (GRPO learns
 * nothing from a uniform group; a single solved member is an imitation example).
 *
 * <p>Asynchronous, paced ({@code dispatcher.pace.groups-per-version} = g &gt; 0, versions ahead
 * a): the trainer consumes g useful groups per policy version, so since the pacer's anchor
 * (version v₀, U₀ useful groups not in flight) at most g·(v − v₀ + a) useful groups are
 * requested. A group that turns out uniform stops counting and is replaced. Synchronous:
 * max-in-flight ÷ G useful groups per version, counted at that version only — see
 * {@link DispatcherConfig#sync()}.
 */
@ApplicationScoped
public class Pacer {
    private static final Logger LOG = Logger.getLogger(Pacer.class);

    /** SQL over {@code dispatcher.groups g}: the group can still teach the trainer. */
    static final String USEFUL = """
            g.state <> 'dropped' AND NOT EXISTS (SELECT 1 FROM dispatcher.solve_history h
                WHERE h.group_id = g.group_id AND (h.valid = 0 OR h.solved = 0 OR (h.solved = h.valid AND g.size > 1)))""";

    @Inject
    DispatcherConfig config;

    private Anchor anchor;
    private long lastVersion = -1;
    private long versionSince;

    record Anchor(long version, long useful) {}

    /** Training groups that may be requested in this pass (Long.MAX_VALUE: unlimited). */
    public long room(Sql sql) {
        if (config.sync()) {
            return syncRoom(sql);
        }
        int perVersion = config.pace().groupsPerVersion();
        if (perVersion <= 0) {
            return Long.MAX_VALUE;
        }
        Row r = sql.one("SELECT s.policy_version AS v,"
                + " (SELECT count(*) FROM dispatcher.groups g WHERE g.mode = $1 AND " + USEFUL + ") AS useful,"
                + " (SELECT count(*) FROM dispatcher.groups g WHERE g.mode = $1 AND g.state NOT IN ('finished', 'failed', 'dropped')) AS open"
                + " FROM dispatcher.scheduler s WHERE s.id = 1", RolloutRequested.Mode.TRAIN.wire()).orElseThrow();
        return paced(r.getLong("v"), r.getLong("useful"), r.getLong("open"), System.nanoTime());
    }

    @jakarta.annotation.PostConstruct
    void check() {
        if (config.pace().groupsPerVersion() < 0 || config.pace().versionsAhead() < 1) {
            throw new IllegalArgumentException("dispatcher.pace.groups-per-version must be >= 0 (0: no pacing) and dispatcher.pace.versions-ahead >= 1,"
                    + " got " + config.pace().groupsPerVersion() + " and " + config.pace().versionsAhead());
        }
    }

    /**
     * The paced allowance at version {@code v} with {@code useful} useful and {@code open}
     * unfinished training groups, at {@code now} (System.nanoTime; public for tests).
     */
    public synchronized long paced(long v, long useful, long open, long now) {
        var pace = config.pace();
        if (v != lastVersion) {
            lastVersion = v;
            versionSince = now;
        }
        if (anchor == null) {
            // groups still in flight (after a restart) count against the allowance
            anchor = new Anchor(v, useful - open);
        }
        long room = (long) pace.groupsPerVersion() * (v - anchor.version() + pace.versionsAhead()) - (useful - anchor.useful());
        if (room <= 0 && open == 0 && now - versionSince > pace.stallAfter().toNanos()) {
            LOG.warnf("pacing: nothing in flight and no new policy version for %s; counting afresh from v%d (the trainer dropped groups counted"
                    + " as useful)", Duration.ofNanos(now - versionSince), v);
            anchor = new Anchor(v, useful - open);
            versionSince = now;
            room = (long) pace.groupsPerVersion() * pace.versionsAhead();
        }
        return Math.max(0, room);
    }

    /** Synchronous: useful groups at the current version up to max-in-flight ÷ G. */
    private long syncRoom(Sql sql) {
        long useful = sql.one("SELECT count(*) AS n FROM dispatcher.groups g, dispatcher.scheduler s WHERE s.id = 1 AND g.mode = $1"
                + " AND g.policy_version = s.policy_version AND " + USEFUL, RolloutRequested.Mode.TRAIN.wire()).orElseThrow().getLong("n");
        return Math.max(0, config.maxInFlight() / config.groupSize() - useful);
    }
}
