package ai.openalice.rl.dispatcher.repository;

import ai.openalice.rl.servicekit.Sql;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/** What {@code GET /groups/{id}} and {@code GET /stats} read: counts over groups, rollouts, tasks, staleness and sources. */
@ApplicationScoped
public class StatusStore {
    /** One attempt of one member of a group; the scores are null until scored. */
    public record Member(String rolloutId, int member, int attempt, String state, String reason, Boolean masked, Integer rExec, Double reward,
            Double sPrm) {}

    /** Training tasks and what the curriculum thinks of them at the current round. */
    public record TaskCounts(long total, long train, long benched, Double meanLastSolveRate) {}

    /** Groups finished ({@code used}) and dropped at one staleness (versions behind the trainer). */
    public record Staleness(long used, long dropped) {}

    /** Every attempt of every member of {@code group}, by member then attempt. */
    public List<Member> members(Sql sql, UUID group) {
        var out = new ArrayList<Member>();
        sql.query("SELECT * FROM dispatcher.rollouts WHERE group_id = $1 ORDER BY member_index, attempt", group)
                .forEach(r -> out.add(new Member(r.getUUID("rollout_id").toString(), r.getInteger("member_index"), r.getInteger("attempt"),
                        r.getString("state"), r.getString("reason"), r.getBoolean("masked"), r.getInteger("r_exec"), r.getDouble("reward"),
                        r.getDouble("s_prm"))));
        return out;
    }

    /** Rollouts by state. */
    public Map<String, Long> rolloutsByState(Sql sql) {
        var out = new TreeMap<String, Long>();
        sql.query("SELECT state, count(*) AS n FROM dispatcher.rollouts GROUP BY state").forEach(r -> out.put(r.getString("state"), r.getLong("n")));
        return out;
    }

    /** Groups by {@code mode.state}. */
    public Map<String, Long> groupsByModeAndState(Sql sql) {
        var out = new TreeMap<String, Long>();
        sql.query("SELECT mode || '.' || state AS k, count(*) AS n FROM dispatcher.groups GROUP BY 1").forEach(r -> out.put(r.getString("k"), r.getLong("n")));
        return out;
    }

    public TaskCounts tasks(Sql sql, long round) {
        var t = sql.one("""
                SELECT count(*) AS tasks, count(*) FILTER (WHERE s.split = 'train') AS train,
                       avg(s.last_solve_rate) FILTER (WHERE s.split = 'train') AS mean_rate,
                       count(*) FILTER (WHERE s.split = 'train' AND %s) AS benched
                  FROM %s""".formatted(SchedulerStore.BENCHED, SchedulerStore.TASKS_WITH_COHORTS), round).orElseThrow();
        return new TaskCounts(t.getLong("tasks"), t.getLong("train"), t.getLong("benched"), t.getDouble("mean_rate"));
    }

    /** Training tasks by their last group's solve rate, in quarters. */
    public Map<String, Long> tasksByLastSolveRate(Sql sql) {
        var out = new TreeMap<String, Long>();
        sql.query("""
                SELECT width_bucket(last_solve_rate, 0, 1.0000001, 4) AS b, count(*) AS n FROM dispatcher.task_state
                 WHERE split = 'train' AND last_solve_rate IS NOT NULL GROUP BY 1""")
                .forEach(r -> out.put(switch (r.getInteger("b")) {
                    case 1 -> "[0,0.25)";
                    case 2 -> "[0.25,0.5)";
                    case 3 -> "[0.5,0.75)";
                    default -> "[0.75,1]";
                }, r.getLong("n")));
        return out;
    }

    /** The staleness histogram: versions behind → groups used and dropped. */
    public Map<Long, Staleness> staleness(Sql sql) {
        var out = new TreeMap<Long, Staleness>();
        sql.query("SELECT * FROM dispatcher.staleness").forEach(r -> out.put(r.getLong("lag"), new Staleness(r.getLong("used"), r.getLong("dropped"))));
        return out;
    }

    /** Training groups requested per source. */
    public Map<String, Long> groupsBySource(Sql sql) {
        var out = new TreeMap<String, Long>();
        sql.query("SELECT source, groups FROM dispatcher.sources").forEach(r -> out.put(r.getString("source"), r.getLong("groups")));
        return out;
    }

    /** Events recorded and not yet relayed to Kafka. */
    public long outboxWaiting(Sql sql) {
        return sql.one("SELECT count(*) AS n FROM dispatcher.outbox WHERE sent_at IS NULL").orElseThrow().getLong("n");
    }
}
