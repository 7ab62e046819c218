package ai.openalice.rl.dispatcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.dispatcher.repository.HistoryRetention;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher's history by age, by hand, kept 30 days: a training group finished 31 days ago
 * goes with its two rollouts; one dropped 29 days ago stays, so does one still requested since 40
 * days ago and an evaluation group finished 40 days ago (its report); of two solve history rows,
 * the 31-day-old one goes.
 */
@QuarkusTest
class HistoryRetentionTest {
    @Inject
    HistoryRetention retention;

    @Inject
    Pool pool;

    void group(UUID id, String task, String mode, String state, UUID eval, int createdDaysAgo, Integer finishedDaysAgo) {
        pool.preparedQuery("INSERT INTO dispatcher.groups (group_id, task_id, task_version, policy_version, size, mode, eval_run_id, state,"
                + " created_at, finished_at) VALUES ($1, $2, 1, 0, 2, $3, $4, $5, now() - make_interval(days => $6), now() - make_interval(days => $7))")
                .execute(Tuple.from(Arrays.asList(id, task, mode, eval, state, createdDaysAgo, finishedDaysAgo))).await().indefinitely();
        for (int m = 0; m < 2; m++) {
            pool.preparedQuery("INSERT INTO dispatcher.rollouts (rollout_id, group_id, member_index, attempt, state) VALUES ($1, $2, $3, 1, 'scored')")
                    .execute(Tuple.of(UUID.randomUUID(), id, m)).await().indefinitely();
        }
    }

    long count(String sql, UUID... ids) {
        return pool.preparedQuery(sql).execute(Tuple.of(List.of(ids).toArray(new UUID[0]))).await().indefinitely().iterator().next().getLong(0);
    }

    @Test
    void settledTrainingGroupsGoWithTheirRolloutsAfterTheWindow() {
        String task = "history-" + UUID.randomUUID();
        UUID old = UUID.randomUUID(), recent = UUID.randomUUID(), open = UUID.randomUUID(), eval = UUID.randomUUID();
        group(old, task, "train", "finished", null, 32, 31);
        group(recent, task, "train", "dropped", null, 30, 29);
        group(open, task, "train", "requested", null, 40, null);
        group(eval, task, "eval", "finished", UUID.randomUUID(), 41, 40);
        assertEquals(1, retention.pruneGroups(Duration.ofDays(30), 1000));
        assertEquals(3, count("SELECT count(*) FROM dispatcher.groups WHERE group_id = ANY($1)", old, recent, open, eval));
        assertEquals(0, count("SELECT count(*) FROM dispatcher.groups WHERE group_id = ANY($1)", old));
        assertEquals(0, count("SELECT count(*) FROM dispatcher.rollouts WHERE group_id = ANY($1)", old));
        assertEquals(6, count("SELECT count(*) FROM dispatcher.rollouts WHERE group_id = ANY($1)", recent, open, eval));

        UUID h1 = UUID.randomUUID(), h2 = UUID.randomUUID();
        for (Object[] row : new Object[][] {{h1, 31}, {h2, 1}}) {
            pool.preparedQuery("INSERT INTO dispatcher.solve_history (group_id, task_id, policy_version, solved, valid, at)"
                    + " VALUES ($1, $2, 0, 1, 2, now() - make_interval(days => $3))").execute(Tuple.of(row[0], task, row[1])).await().indefinitely();
        }
        assertEquals(1, retention.pruneSolveHistory(Duration.ofDays(30), 1000));
        assertEquals(1, count("SELECT count(*) FROM dispatcher.solve_history WHERE group_id = ANY($1)", h1, h2));
        assertEquals(0, count("SELECT count(*) FROM dispatcher.solve_history WHERE group_id = ANY($1)", h1));
    }
}
