package ai.openalice.rl.dispatcher;

import static ai.openalice.rl.dispatcher.DispatcherFixture.await;
import static ai.openalice.rl.dispatcher.DispatcherFixture.http;
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

    void score(UUID group, int first) throws Exception {
        DispatcherFixture.scoreGroup(pool, scoredTopic, group, first);
    }

    List<UUID> groupsAt(long version) {
        return DispatcherFixture.groupsAt(pool, version);
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
        await("v1", () -> DispatcherFixture.rows(pool, "SELECT policy_version FROM dispatcher.scheduler").getFirst().getLong(0) == 1);
        assertEquals(2, scheduler.tick(), "the next batch at v1");
        score(groupsAt(1).getFirst(), 0); // all failed: the trainer drops it
        assertEquals(1, scheduler.tick(), "a replacement for the group that cannot teach");
        assertEquals(3, groupsAt(1).size());
        assertEquals(0, scheduler.tick());
    }
}
