package ai.openalice.rl.dispatcher.repository;

import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.servicekit.Sql;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.OffsetDateTime;
import java.util.UUID;

/** The counts the pacer works from (see {@link ai.openalice.rl.dispatcher.service.Pacer}): training groups that can still teach the trainer. */
@ApplicationScoped
public class PaceStore {
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

    /**
     * Where counting starts: version v₀, the database's time (groups created since count) and the
     * training groups then in flight (they count too: after a restart they were requested by an
     * earlier process). Only these groups are ever counted, so a pass costs the groups since the
     * anchor, not every group of a run of weeks.
     */
    public record Anchor(long version, OffsetDateTime since, UUID[] carried) {}

    /** The current policy version, the useful training groups since {@code anchor}, and the training groups still open. */
    public record Counts(long version, long useful, long open) {}

    /** An anchor at the current version and now. */
    public Anchor anchor(Sql sql) {
        Row r = sql.one("SELECT s.policy_version AS v, now() AS since, ARRAY(SELECT g.group_id FROM dispatcher.groups g WHERE g.mode = $1 AND "
                + OPEN + ") AS carried FROM dispatcher.scheduler s WHERE s.id = 1", RolloutRef.Mode.TRAIN.wire()).orElseThrow();
        return new Anchor(r.getLong("v"), r.getOffsetDateTime("since"), r.getArrayOfUUIDs("carried"));
    }

    /** The counts since {@code anchor}. */
    public Counts since(Sql sql, Anchor anchor) {
        Row r = sql.one("SELECT s.policy_version AS v,"
                + " (SELECT count(*) FROM dispatcher.groups g WHERE g.mode = $1 AND (g.created_at >= $2 OR g.group_id = ANY($3)) AND " + USEFUL
                + ") AS used, (SELECT count(*) FROM dispatcher.groups g WHERE g.mode = $1 AND " + OPEN + ") AS open"
                + " FROM dispatcher.scheduler s WHERE s.id = 1", RolloutRef.Mode.TRAIN.wire(), anchor.since(), anchor.carried()).orElseThrow();
        return new Counts(r.getLong("v"), r.getLong("used"), r.getLong("open"));
    }

    /** Useful training groups sampled at the current policy version. */
    public long usefulAtCurrentVersion(Sql sql) {
        return sql.one("SELECT count(*) AS n FROM dispatcher.groups g, dispatcher.scheduler s WHERE s.id = 1 AND g.mode = $1"
                + " AND g.policy_version = s.policy_version AND " + USEFUL, RolloutRef.Mode.TRAIN.wire()).orElseThrow().getLong("n");
    }
}
