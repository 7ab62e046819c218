package ai.openalice.rl.dispatcher.repository;

import ai.openalice.rl.dispatcher.model.Curriculum;
import ai.openalice.rl.servicekit.Sql;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;

/**
 * What finished groups leave behind: each training group's outcome ({@code solve_history}), the
 * staleness histogram, and the curriculum's bench of every task and cohort.
 */
@ApplicationScoped
public class CurriculumStore {
    /** What the curriculum benches: a task ({@code task_state}) or a cohort of tasks ({@code cohort_state}). */
    public enum Level {
        TASK("task_state", "task_id"),
        COHORT("cohort_state", "cohort");

        private final String table;
        private final String key;

        Level(String table, String key) {
            this.table = table;
            this.key = key;
        }
    }

    /** A finished training group's outcome: all its valid members, and those the trainer keeps. */
    public void recordSolve(Sql sql, GroupStore.Finished g, int kept, int keptSolved) {
        sql.query("INSERT INTO dispatcher.solve_history (group_id, task_id, policy_version, solved, valid, kept, kept_solved)"
                + " VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING", g.groupId(), g.taskId(), g.policyVersion(), g.solved(), g.valid(),
                kept, keptSolved);
    }

    /** One group at {@code lag} versions behind the trainer, used (finished) or dropped as stale. */
    public void countStaleness(Sql sql, long lag, boolean used) {
        String column = used ? "used" : "dropped";
        sql.query("INSERT INTO dispatcher.staleness (lag, " + column + ") VALUES ($1, 1) ON CONFLICT (lag) DO UPDATE SET " + column
                + " = dispatcher.staleness." + column + " + 1", lag);
    }

    /** The task's cohort, if it has one. */
    public Optional<String> cohortOf(Sql sql, String taskId) {
        return sql.one("SELECT cohort FROM dispatcher.task_state WHERE task_id = $1 AND cohort IS NOT NULL", taskId).map(r -> r.getString("cohort"));
    }

    /** Counts a group of the cohort (a cohort's row exists from its first group). */
    public void countCohortGroup(Sql sql, String cohort) {
        sql.query("INSERT INTO dispatcher.cohort_state (cohort, groups) VALUES ($1, 1) ON CONFLICT (cohort) DO UPDATE SET groups = dispatcher.cohort_state.groups + 1",
                cohort);
    }

    /** The streak of uniform groups of task or cohort {@code id}, its row held to the end of the transaction. */
    public int streak(Sql sql, Level level, String id) {
        return sql.one("SELECT streak FROM dispatcher." + level.table + " WHERE " + level.key + " = $1 FOR UPDATE", id).orElseThrow().getInteger("streak");
    }

    /** Stores the bench of task or cohort {@code id} and its last solve rate. */
    public void bench(Sql sql, Level level, String id, Curriculum.Bench bench, double solveRate) {
        sql.query("UPDATE dispatcher." + level.table + " SET streak = $2, skip_until = $3, last_solve_rate = $4 WHERE " + level.key + " = $1", id,
                bench.streak(), bench.skipUntil(), solveRate);
    }
}
