package ai.openalice.rl.dispatcher.service;

import ai.openalice.rl.dispatcher.config.DispatcherConfig;
import ai.openalice.rl.dispatcher.repository.PaceStore;
import ai.openalice.rl.servicekit.Sql;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
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
 * anchor are counted (index {@code groups_train_created}; the counts: {@link PaceStore}). Synchronous:
 * max-in-flight ÷ G useful groups per version, counted at that version only — see
 * {@link DispatcherConfig#sync()}.
 */
@ApplicationScoped
public class Pacer {
    private static final Logger LOG = Logger.getLogger(Pacer.class);

    @Inject
    DispatcherConfig config;

    @Inject
    TrainerTerms terms;

    @Inject
    PaceStore store;

    private PaceStore.Anchor anchor;
    private int anchoredPerVersion;
    private long lastVersion = -1;
    private long versionSince;
    private LongSupplier clock = System::nanoTime;

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
            anchor = store.anchor(sql);
            anchoredPerVersion = perVersion;
        }
        var counts = store.since(sql, anchor);
        long v = counts.version();
        long now = clock.getAsLong();
        if (v != lastVersion) {
            lastVersion = v;
            versionSince = now;
        }
        long room = (long) perVersion * (v - anchor.version() + pace.versionsAhead()) - counts.useful();
        if (room <= 0 && counts.open() == 0 && now - versionSince > pace.stallAfter().toNanos()) {
            LOG.warnf("pacing: nothing in flight and no new policy version for %s; counting afresh from v%d (the trainer dropped groups counted"
                    + " as useful)", Duration.ofNanos(now - versionSince), v);
            anchor = store.anchor(sql);
            versionSince = now;
            room = (long) perVersion * (v - anchor.version() + pace.versionsAhead());
        }
        return Math.max(0, room);
    }

    @PostConstruct
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
        long useful = store.usefulAtCurrentVersion(sql);
        return Math.max(0, config.maxInFlight() / config.groupSize() - useful);
    }
}
