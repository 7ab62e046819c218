package ai.openalice.rl.dispatcher.service;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.RolloutRequested;
import ai.openalice.rl.servicekit.Sql;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.UUID;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * How many more training groups may be requested now, asynchronous or synchronous.
 *
 * <p>A group is <em>useful</em> while it can still teach the trainer: not dropped, and not finished
 * with no valid member, none solved, or — in groups of more than one — fewer than two valid or all
 * solved (GRPO learns nothing from a uniform group; a single solved member is an imitation
 * example). With {@code dispatcher.compact-filter}, as in the trainer, members that ran out of
 * turns, context or time do not count as valid.
 *
 * <p>Asynchronous, paced (g &gt; 0 groups per version: the trainer's terms once stated, else
 * {@code dispatcher.pace.groups-per-version}; versions ahead a): the trainer consumes g useful groups per policy version, so since the pacer's anchor
 * (version v₀, its time, the groups then in flight) at most g·(v − v₀ + a) useful groups are
 * requested. A group that turns out uniform stops counting and is replaced. Only groups since the
 * anchor are counted (index {@code groups_train_created}). Synchronous:
 * max-in-flight ÷ G useful groups per version, counted at that version only — see
 * {@link DispatcherConfig#sync()}.
 */
@ApplicationScoped
public class Pacer {
    private static final Logger LOG = Logger.getLogger(Pacer.class);

    /**
     * SQL over {@code dispatcher.groups g}: the group can still teach the trainer — judged, as the
     * trainer does, on the members it keeps (with compact filtering, not those that ran out of
     * turns, context or time): some solved and, in groups of more than one, at least two kept and
     * not all of them solved.
     */
    static final String USEFUL = """
            g.state <> 'dropped' AND NOT EXISTS (SELECT 1 FROM dispatcher.solve_history h
                WHERE h.group_id = g.group_id AND (coalesce(h.kept_solved, h.solved) = 0
                  OR (g.size > 1 AND (coalesce(h.kept, h.valid) < 2 OR coalesce(h.kept_solved, h.solved) = coalesce(h.kept, h.valid)))))""";

    /** SQL over {@code dispatcher.groups g}: the group is not over yet. */
    static final String OPEN = "g.state NOT IN ('finished', 'failed', 'dropped')";

    @Inject
    DispatcherConfig config;

    @Inject
    TrainerTerms terms;

    private Anchor anchor;
    private int anchoredPerVersion;
    private long lastVersion = -1;
    private long versionSince;
    private LongSupplier clock = System::nanoTime;

    /**
     * Where counting starts: version v₀, the database's time (groups created since count) and the
     * training groups then in flight (they count too: after a restart they were requested by an
     * earlier process). Only these groups are ever counted, so a pass costs the groups since the
     * anchor, not every group of a run of weeks.
     */
    record Anchor(long version, OffsetDateTime since, UUID[] carried) {}

    /** Training groups that may be requested in this pass (Long.MAX_VALUE: unlimited). */
    public synchronized long room(Sql sql) {
        if (config.sync()) {
            return syncRoom(sql);
        }
        var pace = config.pace();
        int perVersion = terms.current().groupsPerVersion();
        if (perVersion <= 0) {
            return Long.MAX_VALUE;
        }
        if (anchor == null || perVersion != anchoredPerVersion) { // a new rate counts from now, not from the old one's start
            anchor = anchor(sql);
            anchoredPerVersion = perVersion;
        }
        Row r = sql.one("SELECT s.policy_version AS v,"
                + " (SELECT count(*) FROM dispatcher.groups g WHERE g.mode = $1 AND (g.created_at >= $2 OR g.group_id = ANY($3)) AND " + USEFUL
                + ") AS used, (SELECT count(*) FROM dispatcher.groups g WHERE g.mode = $1 AND " + OPEN + ") AS open"
                + " FROM dispatcher.scheduler s WHERE s.id = 1", RolloutRef.Mode.TRAIN.wire(), anchor.since(), anchor.carried()).orElseThrow();
        long v = r.getLong("v");
        long now = clock.getAsLong();
        if (v != lastVersion) {
            lastVersion = v;
            versionSince = now;
        }
        long room = (long) perVersion * (v - anchor.version() + pace.versionsAhead()) - r.getLong("used");
        if (room <= 0 && r.getLong("open") == 0 && now - versionSince > pace.stallAfter().toNanos()) {
            LOG.warnf("pacing: nothing in flight and no new policy version for %s; counting afresh from v%d (the trainer dropped groups counted"
                    + " as useful)", Duration.ofNanos(now - versionSince), v);
            anchor = anchor(sql);
            versionSince = now;
            room = (long) perVersion * (v - anchor.version() + pace.versionsAhead());
        }
        return Math.max(0, room);
    }

    private static Anchor anchor(Sql sql) {
        Row r = sql.one("SELECT s.policy_version AS v, now() AS since, ARRAY(SELECT g.group_id FROM dispatcher.groups g WHERE g.mode = $1 AND "
                + OPEN + ") AS carried FROM dispatcher.scheduler s WHERE s.id = 1", RolloutRef.Mode.TRAIN.wire()).orElseThrow();
        return new Anchor(r.getLong("v"), r.getOffsetDateTime("since"), r.getArrayOfUUIDs("carried"));
    }

    @jakarta.annotation.PostConstruct
    void check() {
        if (config.pace().groupsPerVersion() < 0 || config.pace().versionsAhead() < 1) {
            throw new IllegalArgumentException("dispatcher.pace.groups-per-version must be >= 0 (0: no pacing) and dispatcher.pace.versions-ahead >= 1,"
                    + " got " + config.pace().groupsPerVersion() + " and " + config.pace().versionsAhead());
        }
    }

    /** Counts afresh from the next pass, as a new process would (tests that reset the database). */
    public synchronized void forget() {
        anchor = null;
        lastVersion = -1;
    }

    /** The pacer's clock in System.nanoTime units (tests move it forward). */
    public synchronized void useClock(LongSupplier nanos) {
        clock = nanos;
    }

    /** Synchronous: useful groups at the current version up to max-in-flight ÷ G. */
    private long syncRoom(Sql sql) {
        long useful = sql.one("SELECT count(*) AS n FROM dispatcher.groups g, dispatcher.scheduler s WHERE s.id = 1 AND g.mode = $1"
                + " AND g.policy_version = s.policy_version AND " + USEFUL, RolloutRef.Mode.TRAIN.wire()).orElseThrow().getLong("n");
        return Math.max(0, config.maxInFlight() / config.groupSize() - useful);
    }
}
