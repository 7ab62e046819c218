package ai.openalice.rl.dispatcher;

import static ai.openalice.rl.dispatcher.DispatcherFixture.await;
import static ai.openalice.rl.dispatcher.DispatcherFixture.http;
import static ai.openalice.rl.dispatcher.DispatcherFixture.reward;
import static ai.openalice.rl.dispatcher.DispatcherFixture.send;
import static ai.openalice.rl.dispatcher.DispatcherFixture.task;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.dispatcher.service.Scheduler;
import ai.openalice.rl.events.CheckpointPublished;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * Synchronous scheduling (G = 2, max-in-flight 4: two groups per policy version) on the real
 * broker and database: the next batch waits for the checkpoint, and a group that cannot teach the
 * trainer (all members failed) is replaced at the same version.
 */
@QuarkusTest
@TestProfile(SyncSchedulingTest.Sync.class)
class SyncSchedulingTest {
    public static class Sync implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("dispatcher.sync", "true");
        }
    }

    @ConfigProperty(name = "mp.messaging.incoming.rewards-scored.topic")
    String scoredTopic;

    @ConfigProperty(name = "mp.messaging.incoming.checkpoints-published.topic")
    String checkpointsTopic;

    @TestHTTPResource("/")
    URL base;

    @Inject
    Scheduler scheduler;

    @Inject
    Pool pool;

    List<Row> rows(String sql, Object... args) {
        return DispatcherFixture.rows(pool, sql, args);
    }

    /** Scores every member of {@code group}: member 0 with {@code first}, the others with 0. */
    void score(UUID group, int first) throws Exception {
        for (Row r : rows("SELECT rollout_id, member_index FROM dispatcher.rollouts WHERE group_id = $1", group)) {
            send(scoredTopic, reward("t", group, r.getUUID("rollout_id"), r.getInteger("member_index") == 0 ? first : 0, 0.5));
        }
        await("group " + group + " finished", () -> rows("SELECT state FROM dispatcher.groups WHERE group_id = $1", group).getFirst()
                .getString("state").equals("finished"));
    }

    List<UUID> groupsAt(long version) {
        return rows("SELECT group_id FROM dispatcher.groups WHERE policy_version = $1 ORDER BY round", version).stream().map(r -> r.getUUID(0)).toList();
    }

    @Test
    void theNextBatchWaitsForTheCheckpointAndUselessGroupsAreReplaced() throws Exception {
        DispatcherFixture.reset(pool);
        for (String id : List.of("sync-a", "sync-b", "sync-c")) {
            assertEquals(200, http(URI.create(base.toString()).resolve("/tasks?source=s"), "POST", task(id, "train", null).toString()).status());
        }
        assertEquals(2, scheduler.tick(), "one batch: max-in-flight 4 / G 2");
        for (UUID g : groupsAt(0)) {
            score(g, 1); // one solved, one not: both groups can teach the trainer
        }
        assertEquals(0, scheduler.tick(), "nothing in flight, but no checkpoint yet: an asynchronous dispatcher would request 2 more here");

        send(checkpointsTopic, new CheckpointPublished(1, 1, null, null, null, Map.of()));
        await("v1", () -> rows("SELECT policy_version FROM dispatcher.scheduler").getFirst().getLong(0) == 1);
        assertEquals(2, scheduler.tick(), "the next batch at v1");
        score(groupsAt(1).getFirst(), 0); // all failed: the trainer drops it
        assertEquals(1, scheduler.tick(), "a replacement for the group that cannot teach");
        assertEquals(3, groupsAt(1).size());
        assertEquals(0, scheduler.tick());
    }
}
