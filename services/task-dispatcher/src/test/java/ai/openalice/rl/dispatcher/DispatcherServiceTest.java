package ai.openalice.rl.dispatcher;

import static ai.openalice.rl.dispatcher.DispatcherFixture.await;
import static ai.openalice.rl.dispatcher.DispatcherFixture.completed;
import static ai.openalice.rl.dispatcher.DispatcherFixture.http;
import static ai.openalice.rl.dispatcher.DispatcherFixture.records;
import static ai.openalice.rl.dispatcher.DispatcherFixture.reward;
import static ai.openalice.rl.dispatcher.DispatcherFixture.send;
import static ai.openalice.rl.dispatcher.DispatcherFixture.task;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.dispatcher.service.Scheduler;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.RolloutRequested;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.events.VerificationCompleted;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.servicekit.Inbox;
import ai.openalice.rl.testkit.Waits;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The dispatcher on the real broker and database (G = 2, at most 4 rollouts in flight, 2 attempts
 * per member; the tests drive the scheduler's passes themselves).
 */
@QuarkusTest
class DispatcherServiceTest {
    static final Duration WAIT = Duration.ofSeconds(45);

    @ConfigProperty(name = "mp.messaging.incoming.tasks-submitted.topic")
    String tasksTopic;

    @ConfigProperty(name = "mp.messaging.outgoing.rollouts-requested.topic")
    String requestedTopic;

    @ConfigProperty(name = "mp.messaging.incoming.rollouts-completed.topic")
    String completedTopic;

    @ConfigProperty(name = "mp.messaging.incoming.verifications-completed.topic")
    String verifiedTopic;

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

    @Inject
    Inbox inbox;

    @BeforeEach
    void clean() {
        DispatcherFixture.reset(pool);
    }

    URI uri(String path) {
        return URI.create(base.toString()).resolve(path);
    }

    List<Row> rows(String sql, Object... args) {
        return DispatcherFixture.rows(pool, sql, args);
    }

    long count(String sql, Object... args) {
        return rows(sql, args).getFirst().getLong(0);
    }

    void post(String id, String split) {
        var r = http(uri("/tasks?source=team-a"), "POST", task(id, split, null).toString());
        assertEquals(200, r.status(), String.valueOf(r.body()));
    }

    @Test
    void groupsFanOutUnderTheCapAndTheStateMachineFollowsTheEvents() throws Exception {
        post("fan-a", "train");
        post("fan-b", "train");
        post("fan-c", "train");
        post("fan-eval", "eval");
        assertEquals(2, scheduler.tick(), "a cap of 4 rollouts leaves room for two groups of 2");
        assertEquals(0, scheduler.tick(), "nothing more while 4 rollouts are in flight");
        var requests = awaitRequests(4);
        var groups = new HashSet<UUID>();
        for (var r : requests) {
            groups.add(r.groupId());
            assertEquals(2, r.groupSize());
            assertEquals(1, r.attempt());
            assertEquals(RolloutRef.Mode.TRAIN, r.mode());
            assertTrue(r.taskId().startsWith("fan-") && !r.taskId().equals("fan-eval"), "eval tasks are never trained on");
        }
        assertEquals(2, groups.size());

        // one group goes all the way: completed → verified → scored (one solved, one not)
        UUID g = groups.iterator().next();
        var members = requests.stream().filter(r -> r.groupId().equals(g)).toList();
        String t = members.getFirst().taskId();
        for (var m : members) {
            send(completedTopic, completed(t, g, m.rolloutId(), Termination.SUBMITTED));
            boolean solved = m.memberIndex() == 0;
            send(verifiedTopic, new VerificationCompleted(m.ref(), solved ? VerificationStatus.RESOLVED : VerificationStatus.UNRESOLVED,
                    solved, Map.of(), Map.of(), List.of(), 10L, null, null,
                    new VerificationCompleted.Episode(Termination.SUBMITTED, "", new TrajectoryRef.Inline(new Trajectory(List.of())))));
        }
        await("verified", () -> count("SELECT count(*) FROM dispatcher.rollouts WHERE group_id = $1 AND state = 'verified'", g) == 2);
        for (var m : members) {
            send(scoredTopic, reward(t, g, m.rolloutId(), m.memberIndex() == 0 ? 1 : 0, 0.5));
        }
        await("group finished", () -> http(uri("/groups/" + g), "GET", null).body().get("state").asText().equals("finished"));
        var task = http(uri("/tasks/" + t), "GET", null).body();
        assertEquals(0.5, task.get("lastSolveRate").asDouble(), 1e-12);
        assertEquals(0, task.at("/curriculum/streak").asInt(), "a partly solved group keeps the task in rotation");
        assertEquals(1, scheduler.tick(), "the finished group's capacity goes to the next group");
        var stats = http(uri("/stats"), "GET", null).body();
        assertEquals(4, stats.get("inFlight").asInt());
        assertEquals(2, stats.at("/rollouts/scored").asInt());
    }

    @Test
    void lostAndInfraFailedRolloutsAreReRequestedThenFailedWithTheReason() throws Exception {
        post("lost-a", "train");
        assertEquals(2, scheduler.tick(), "one task, two groups of 2 under the cap of 4");
        UUID g = awaitRequests(4).getFirst().groupId();
        var first = inGroup(awaitRequests(4), g);
        // member 0: the runner vanished — its deadline passes
        pool.preparedQuery("UPDATE dispatcher.rollouts SET deadline = now() - interval '1 second' WHERE rollout_id = $1")
                .execute(Tuple.of(first.get(0).rolloutId())).await().atMost(WAIT);
        // member 1: an infrastructure failure in the episode
        send(completedTopic, completed("lost-a", g, first.get(1).rolloutId(), Termination.INFRA_ERROR));
        assertEquals(1, scheduler.watchDeadlines());
        await("second attempts", () -> count("SELECT count(*) FROM dispatcher.rollouts WHERE group_id = $1 AND attempt = 2", g) == 2);
        var retries = inGroup(awaitRequests(6), g).stream().filter(r -> r.attempt() == 2).toList();
        assertEquals(2, retries.size());
        assertTrue(retries.stream().noneMatch(r -> r.rolloutId().equals(first.get(0).rolloutId()) || r.rolloutId().equals(first.get(1).rolloutId())),
                "a retry is a new rollout id (runners and the verifier dedupe by id)");
        // attempt 2 of member 0 is lost too: out of attempts (2) — failed, with the reason, and never a reward
        var second = retries.stream().filter(r -> r.memberIndex() == 0).findFirst().orElseThrow();
        pool.preparedQuery("UPDATE dispatcher.rollouts SET deadline = now() - interval '1 second' WHERE rollout_id = $1")
                .execute(Tuple.of(second.rolloutId())).await().atMost(WAIT);
        assertEquals(1, scheduler.watchDeadlines());
        var group = http(uri("/groups/" + g), "GET", null).body();
        var failed = new ArrayList<String>();
        group.get("rollouts").forEach(r -> {
            if (r.get("state").asText().equals("failed")) {
                failed.add(r.get("reason").asText());
            }
        });
        assertEquals(1, failed.size(), group.toString());
        assertTrue(failed.getFirst().startsWith("gave up after 2 attempt(s); last: deadline passed in state requested"), failed.getFirst());
        assertTrue(group.get("rollouts").findValuesAsText("reason").stream().anyMatch(s -> s.contains("pod evicted")), group.toString());
        assertEquals(0, count("SELECT count(*) FROM dispatcher.rollouts WHERE group_id = $1 AND reward IS NOT NULL", g));
    }

    @Test
    void groupsMoreThanMaxStalenessBehindAreDroppedAndCounted() throws Exception {
        post("stale-a", "train");
        assertEquals(2, scheduler.tick());
        UUID g = awaitRequests(4).getFirst().groupId();
        send(checkpointsTopic, new CheckpointPublished(4, 40, null, null, null, Map.of()));
        await("v4", () -> count("SELECT policy_version FROM dispatcher.scheduler") == 4);
        assertEquals("requested", http(uri("/groups/" + g), "GET", null).body().get("state").asText(), "lag 4 is within max-staleness 4");
        send(checkpointsTopic, new CheckpointPublished(5, 50, null, null, null, Map.of()));
        await("group dropped", () -> http(uri("/groups/" + g), "GET", null).body().get("state").asText().equals("dropped"));
        var stats = http(uri("/stats"), "GET", null).body();
        assertEquals(2, stats.at("/staleness/5/dropped").asInt(), stats.toString());
        assertEquals(0, stats.get("inFlight").asInt());
        assertEquals(2, scheduler.tick());
        assertEquals(List.of(5L, 5L), rows("SELECT policy_version FROM dispatcher.groups WHERE state = 'requested'").stream().map(r -> r.getLong(0)).toList(),
                "new groups sample the trainer's current version");
    }

    /**
     * The trainer owns what its loss assumes of the rollouts: once a checkpoint states its terms,
     * new requests sample at its temperature within its context, and its max-staleness drops groups.
     * A later checkpoint that states no temperature (imitation) leaves the dispatcher's own.
     */
    @Test
    void theTrainersStatedTermsRuleTheRequestsThatFollow() throws Exception {
        post("terms-a", "train");
        assertEquals(2, scheduler.tick());
        var before = awaitRequests(4);
        assertTrue(before.stream().allMatch(r -> r.sampling().temperature() == 1.0 && r.task().limits().maxContextTokens() == null),
                "the dispatcher's own settings (test profile: temperature 1.0) until the trainer says otherwise");
        UUID g = before.getFirst().groupId();
        send(checkpointsTopic, new CheckpointPublished(2, 20, null, null, null, Map.of(), new CheckpointPublished.Terms(0.6, false, 1, 0, 300)));
        // lag 2 is within the dispatcher's own max-staleness (4), not within the trainer's (1)
        await("group dropped", () -> http(uri("/groups/" + g), "GET", null).body().get("state").asText().equals("dropped"));
        assertEquals(2, scheduler.tick());
        var after = awaitRequests(8).stream().filter(r -> r.policyVersion() == 2).toList();
        assertEquals(4, after.size());
        assertTrue(after.stream().allMatch(r -> r.sampling().temperature() == 0.6 && r.task().limits().maxContextTokens() == 300), after.toString());

        send(checkpointsTopic, new CheckpointPublished(3, 30, null, null, null, Map.of(), new CheckpointPublished.Terms(null, false, 0, 0, 300)));
        await("v3", () -> count("SELECT policy_version FROM dispatcher.scheduler") == 3);
        assertEquals(2, scheduler.tick(), "max-staleness 0 dropped the v2 groups");
        var third = awaitRequests(12).stream().filter(r -> r.policyVersion() == 3).toList();
        assertTrue(third.size() == 4 && third.stream().allMatch(r -> r.sampling().temperature() == 1.0 && r.task().limits().maxContextTokens() == 300),
                "imitation states no temperature: the dispatcher's own again; the rest of v3's terms hold: " + third);

        // a late checkpoint's terms never replace a newer one's: after v1's (max-staleness 9) and v4's (none stated), v3's max-staleness 0 holds
        send(checkpointsTopic, new CheckpointPublished(1, 10, null, null, null, Map.of(), new CheckpointPublished.Terms(0.9, false, 9, 0, 900)));
        send(checkpointsTopic, new CheckpointPublished(4, 40, null, null, null, Map.of()));
        await("v4", () -> count("SELECT policy_version FROM dispatcher.scheduler") == 4);
        assertEquals(2, scheduler.tick(), "the v3 groups were dropped at lag 1");
        var fourth = awaitRequests(16).stream().filter(r -> r.policyVersion() == 4).toList();
        assertTrue(fourth.size() == 4 && fourth.stream().allMatch(r -> r.sampling().temperature() == 1.0 && r.task().limits().maxContextTokens() == 300),
                fourth.toString());
    }

    /** A member's later attempt samples at its group's temperature, whatever the trainer states meanwhile: a group is drawn at one. */
    @Test
    void aRetriedMemberSamplesAtItsGroupsTemperatureAfterTheTermsMoved() throws Exception {
        post("retry-t", "train");
        assertEquals(2, scheduler.tick());
        var first = awaitRequests(4);
        send(checkpointsTopic, new CheckpointPublished(0, 0, null, null, null, Map.of(), new CheckpointPublished.Terms(0.6, false, 4, 0, 4096)));
        await("terms adopted", () -> count("SELECT count(*) FROM dispatcher.scheduler WHERE terms_version = 0") == 1);
        var lost = first.getFirst();
        pool.preparedQuery("UPDATE dispatcher.rollouts SET deadline = now() - interval '1 second' WHERE rollout_id = $1")
                .execute(Tuple.of(lost.rolloutId())).await().atMost(WAIT);
        assertEquals(1, scheduler.watchDeadlines());
        var retry = awaitRequests(5).stream().filter(r -> r.attempt() == 2).findFirst().orElseThrow();
        assertEquals(lost.groupId(), retry.groupId());
        assertEquals(1.0, retry.sampling().temperature(), "the group's temperature (the dispatcher's own when it was created), not the new 0.6");
    }

    @Test
    void aPublisherWithManyTasksDoesNotStarveOneWithFew() {
        for (String id : List.of("big-1", "big-2", "big-3")) {
            assertEquals(200, http(uri("/tasks?source=big"), "POST", task(id, "train", null).toString()).status());
        }
        assertEquals(200, http(uri("/tasks?source=small"), "POST", task("small-1", "train", null).toString()).status());
        assertEquals(2, scheduler.tick());
        var picked = rows("SELECT task_id FROM dispatcher.groups ORDER BY round").stream().map(r -> r.getString(0)).toList();
        // ties in md5 order, not id order: md5 big-1 d7d1…, big-2 42ef…, big-3 9ca3…, small-1 b555…
        assertEquals(List.of("big-2", "small-1"), picked, "equal weights: one group each, whatever the number of tasks");
    }

    @Test
    void tasksWhoseGroupsWereAllSolvedSitOutWhileOthersRun() throws Exception {
        post("cur-a", "train");
        post("cur-b", "train");
        assertEquals(2, scheduler.tick());
        var requests = awaitRequests(4);
        var a = requests.stream().filter(r -> r.taskId().equals("cur-a")).toList();
        for (var m : a) {
            send(scoredTopic, reward("cur-a", m.groupId(), m.rolloutId(), 1, 0.9));
        }
        await("cur-a benched", () -> http(uri("/tasks/cur-a"), "GET", null).body().at("/curriculum/streak").asInt() == 1);
        var task = http(uri("/tasks/cur-a"), "GET", null).body();
        // rounds 0 and 1 were used; the group finished at round 2: base 4 → sits out until round 6
        assertEquals(6, task.at("/curriculum/skipUntilRound").asLong());
        assertEquals(1.0, task.get("lastSolveRate").asDouble());
        assertEquals(2, task.at("/solveHistory/0/solved").asInt());
        assertEquals(1, scheduler.tick());
        var next = rows("SELECT task_id FROM dispatcher.groups WHERE round = 2").getFirst().getString("task_id");
        assertEquals("cur-b", next, "cur-b (not benched) goes before cur-a, though cur-a had fewer groups in flight");
        assertEquals(1, http(uri("/stats"), "GET", null).body().at("/tasks/benchedByCurriculum").asInt());
    }

    @Test
    void aCohortWhoseGroupFailedSitsOutWithEveryOneOfItsTasks() throws Exception {
        postInCohort("coh-a1", "alpha");
        postInCohort("coh-b1", "beta");
        assertEquals(2, scheduler.tick());
        var a = awaitRequests(4).stream().filter(r -> r.taskId().equals("coh-a1")).toList();
        for (var m : a) {
            send(scoredTopic, reward("coh-a1", m.groupId(), m.rolloutId(), 0, 0.3));
        }
        await("cohort alpha benched", () -> http(uri("/tasks/coh-a1"), "GET", null).body().at("/cohort/streak").asInt() == 1);
        var task = http(uri("/tasks/coh-a1"), "GET", null).body();
        assertEquals("alpha", task.at("/cohort/cohort").asText());
        // rounds 0 and 1 were used; the group finished at round 2: base 4 → the cohort sits out until round 6
        assertEquals(6, task.at("/cohort/skipUntilRound").asLong());
        assertEquals(0.0, task.at("/cohort/lastSolveRate").asDouble());
        postInCohort("coh-a2", "alpha"); // never run: its own streak is 0, but its cohort is benched
        postInCohort("coh-z1", null); // no cohort
        assertEquals(0, http(uri("/tasks/coh-a2"), "GET", null).body().at("/curriculum/streak").asInt());
        assertEquals(2, http(uri("/stats"), "GET", null).body().at("/tasks/benchedByCurriculum").asInt(), "coh-a1 and coh-a2");
        assertEquals(1, scheduler.tick());
        // coh-a2 and coh-z1 both have no group, and md5 puts coh-a2 (6429…) before coh-z1 (f8a5…): only the cohort's bench moves it back
        var next = rows("SELECT task_id FROM dispatcher.groups WHERE round = 2").getFirst().getString("task_id");
        assertEquals("coh-z1", next);
    }

    void postInCohort(String id, String family) {
        var t = task(id, "train", null);
        if (family != null) {
            t.put("family", family);
        }
        var r = http(uri("/tasks?source=team-a"), "POST", t.toString());
        assertEquals(200, r.status(), String.valueOf(r.body()));
    }

    @Test
    void anEvaluationRunReportsPassAtKAndBestOfK() throws Exception {
        post("ev-a", "eval");
        var start = http(uri("/evals"), "POST", "{\"taskIds\": [\"ev-a\"], \"k\": 2, \"policyVersion\": 3, \"alpha\": 0.5}");
        assertEquals(202, start.status(), String.valueOf(start.body()));
        String run = start.body().get("evalRunId").asText();
        assertEquals(1, scheduler.tick(), "the pending evaluation group is released first");
        var reqs = awaitRequests(2);
        assertTrue(reqs.stream().allMatch(r -> r.mode() == RolloutRef.Mode.EVAL && r.policyVersion() == 3 && run.equals(String.valueOf(r.ref().evalRunId()))));
        // member 0 solves it but the PRM prefers member 1 (s_prm 0.9 vs 0.3)
        for (var r : reqs) {
            send(scoredTopic, reward("ev-a", r.groupId(), r.rolloutId(), r.memberIndex() == 0 ? 1 : 0, r.memberIndex() == 0 ? 0.3 : 0.9));
        }
        await("report done", () -> http(uri("/evals/" + run), "GET", null).body().get("state").asText().equals("done"));
        var o = http(uri("/evals/" + run), "GET", null).body().get("overall");
        assertEquals(0.5, o.get("pass@1").asDouble(), 1e-12);      // c/n = 1/2
        assertEquals(1.0, o.get("pass@k").asDouble(), 1e-12);      // 1 − C(1,2)/C(2,2) = 1
        assertEquals(0.0, o.get("bestOfK.prm").asDouble(), 1e-12); // the PRM's pick (s_prm 0.9) failed
        assertEquals(1.0, o.get("bestOfK.exec").asDouble(), 1e-12);
        assertEquals(1.0, o.get("bestOfK.hybrid").asDouble(), 1e-12); // 0.5·1 + 0.5·0.3 = 0.65 > 0.5·0 + 0.5·0.9 = 0.45
        assertEquals(400, http(uri("/evals"), "POST", "{\"taskIds\": [\"nope\"], \"k\": 2, \"policyVersion\": 3}").status());
        assertEquals(400, http(uri("/evals"), "POST", "{\"taskIds\": [\"ev-a\"], \"k\": 0, \"policyVersion\": 3}").status());
    }

    /** The task-dispatcher only observes the rollout topics, but an event it cannot read is still dead-lettered, never skipped silently. */
    @Test
    void anEventItCannotReadGoesToTheDeadLetterTopicWithTheReason() throws Exception {
        send(scoredTopic, "junk", "{not json".getBytes(StandardCharsets.UTF_8));
        String dlq = inbox.deadLetterTopic(Topic.REWARDS_SCORED);
        await("the dead letter on " + dlq, () -> records(dlq, 1, Duration.ofSeconds(3)).stream().anyMatch(r ->
                header(r, Inbox.REASON_HEADER).startsWith("not JSON")
                        && header(r, Inbox.TOPIC_HEADER).equals(scoredTopic)
                        && header(r, Inbox.CONSUMER_HEADER).contains("dispatcher")));
    }

    static String header(ConsumerRecord<String, byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? "" : new String(h.value(), StandardCharsets.UTF_8);
    }

    static List<RolloutRequested> inGroup(List<RolloutRequested> all, UUID g) {
        return all.stream().filter(r -> r.groupId().equals(g)).sorted(Comparator.comparing(RolloutRequested::memberIndex)
                .thenComparing(RolloutRequested::attempt)).toList();
    }

    /** The rollouts requested since the last clean (matched against the groups in the database). */
    List<RolloutRequested> awaitRequests(int n) {
        var out = new ArrayList<RolloutRequested>();
        // the requests on the topic whose rollouts the database holds, until n of them match (either may be ahead of the other)
        Waits.until(n + " rollouts requested", WAIT, () -> {
            var ids = new HashSet<UUID>();
            rows("SELECT rollout_id FROM dispatcher.rollouts WHERE state <> 'pending'").forEach(r -> ids.add(r.getUUID(0)));
            out.clear();
            for (var rec : records(requestedTopic, 1, Duration.ofSeconds(5))) {
                var p = ((EventCodec.Decoded.Ok<RolloutRequested>) EventCodec.<RolloutRequested>decode(Topic.ROLLOUTS_REQUESTED, rec.value()))
                        .envelope().payload();
                if (ids.contains(p.rolloutId())) {
                    assertEquals(p.groupId().toString(), rec.key(), "keyed by group");
                    out.add(p);
                }
            }
            return out.size() >= n;
        });
        out.sort(Comparator.comparing(RolloutRequested::memberIndex));
        return out;
    }
}
