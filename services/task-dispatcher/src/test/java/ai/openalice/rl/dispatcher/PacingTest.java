package ai.openalice.rl.dispatcher;

import static ai.openalice.rl.dispatcher.DispatcherFixture.await;
import static ai.openalice.rl.dispatcher.DispatcherFixture.http;
import static ai.openalice.rl.dispatcher.DispatcherFixture.send;
import static ai.openalice.rl.dispatcher.DispatcherFixture.task;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.dispatcher.service.Pacer;
import ai.openalice.rl.dispatcher.service.Scheduler;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Termination;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * Paced asynchronous scheduling (G = 2, one group per policy version, two versions ahead, a cap of
 * 8 in flight that never binds here) on the real broker and database.
 */
@QuarkusTest
@TestProfile(PacingTest.Paced.class)
class PacingTest {
    public static class Paced implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("dispatcher.max-in-flight", "8", "dispatcher.pace.groups-per-version", "1", "dispatcher.pace.versions-ahead", "2",
                    "dispatcher.pace.stall-after", "PT5M");
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
    Pacer pacer;

    @Inject
    Pool pool;

    void score(UUID group, int first) throws Exception {
        DispatcherFixture.scoreGroup(pool, scoredTopic, group, first);
    }

    List<UUID> groupsAt(long version) {
        return DispatcherFixture.groupsAt(pool, version);
    }

    /** An empty database, a pacer counting afresh, and these training tasks submitted. */
    void freshStart(String... ids) throws Exception {
        DispatcherFixture.reset(pool);
        pacer.forget();
        for (String id : ids) {
            assertEquals(200, http(URI.create(base.toString()).resolve("/tasks?source=s"), "POST", task(id, "train", null).toString()).status());
        }
    }

    @Test
    void usefulGroupsStayWithinTheVersionsAheadOfTheTrainer() throws Exception {
        freshStart("pace-a", "pace-b", "pace-c");
        assertEquals(2, scheduler.tick(), "1 group per version x 2 versions ahead");
        for (UUID g : groupsAt(0)) {
            score(g, 1); // partly solved: both can teach the trainer
        }
        assertEquals(0, scheduler.tick(), "nothing in flight, but the trainer has consumed nothing yet: unpaced, 4 more (8 / G) would go out");

        send(checkpointsTopic, new CheckpointPublished(1, 1, null, null, null, Map.of()));
        await("v1", () -> DispatcherFixture.rows(pool, "SELECT policy_version FROM dispatcher.scheduler").getFirst().getLong(0) == 1);
        assertEquals(1, scheduler.tick(), "v1: 1 x (1 + 2) allowed, 2 requested");
        score(groupsAt(1).getFirst(), 0); // all failed: it teaches nothing and stops counting
        assertEquals(1, scheduler.tick(), "a replacement for the uniform group");
        assertEquals(0, scheduler.tick());

        // the trainer dropped what was counted as useful and never publishes v2: after stall-after, with nothing in flight, count afresh
        long sixMinutesOn = System.nanoTime() + Duration.ofMinutes(6).toNanos();
        pacer.useClock(() -> sixMinutesOn);
        try {
            assertEquals(0, scheduler.tick(), "groups still in flight: wait for them");
            for (UUID g : DispatcherFixture.rows(pool, "SELECT group_id FROM dispatcher.groups WHERE state <> 'finished'").stream()
                    .map(r -> r.getUUID(0)).toList()) {
                score(g, 1);
            }
            assertEquals(2, scheduler.tick(), "nothing in flight for 6 min at v1: the allowance starts again at 1 x 2");
            assertEquals(0, scheduler.tick());
        } finally {
            pacer.useClock(System::nanoTime);
        }
    }

    @Test
    void aGroupSolvedOnlyByAMemberThatRanOutOfTurnsIsReplaced() throws Exception {
        freshStart("pace-d", "pace-e", "pace-f");
        assertEquals(2, scheduler.tick());
        List<UUID> groups = groupsAt(0);
        // Compact filtering (the default) leaves the trainer one member, a failure: nothing to learn.
        DispatcherFixture.scoreGroup(pool, scoredTopic, groups.get(0), 1, Termination.MAX_STEPS);
        var history = DispatcherFixture.rows(pool, "SELECT solved, valid, kept, kept_solved FROM dispatcher.solve_history WHERE group_id = $1",
                groups.get(0)).getFirst();
        assertEquals(List.of(1, 2, 1, 0), List.of(history.getInteger(0), history.getInteger(1), history.getInteger(2), history.getInteger(3)));
        assertEquals(1, scheduler.tick(), "replaced, as a group that solved nothing would be");
        score(groups.get(1), 1); // solved and submitted: useful
        assertEquals(0, scheduler.tick());
    }
}
