package ai.openalice.rl.dispatcher;

import static ai.openalice.rl.dispatcher.DispatcherFixture.await;
import static ai.openalice.rl.dispatcher.DispatcherFixture.completed;
import static ai.openalice.rl.dispatcher.DispatcherFixture.http;
import static ai.openalice.rl.dispatcher.DispatcherFixture.records;
import static ai.openalice.rl.dispatcher.DispatcherFixture.reward;
import static ai.openalice.rl.dispatcher.DispatcherFixture.send;
import static ai.openalice.rl.dispatcher.DispatcherFixture.sendAs;
import static ai.openalice.rl.dispatcher.DispatcherFixture.task;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.dispatcher.service.Scheduler;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.RolloutRequested;
import ai.openalice.rl.events.TaskAccepted;
import ai.openalice.rl.events.TaskRejected;
import ai.openalice.rl.events.TaskSubmitted;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.VerificationCompleted;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.TaskVersioning;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
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

    @ConfigProperty(name = "mp.messaging.outgoing.tasks-rejected.topic")
    String rejectedTopic;

    @ConfigProperty(name = "mp.messaging.outgoing.tasks-accepted-out.topic")
    String acceptedTopic;

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
    void kafkaIntakeStoresValidTasksAndRejectsTheRestWithTheirReasons() throws Exception {
        String id = "kafka-" + UUID.randomUUID().toString().substring(0, 8);
        sendAs("dispatcher", tasksTopic, new TaskSubmitted("publisher-x", task(id + "-own", "train", null), false, null)); // its own: skipped
        send(tasksTopic, new TaskSubmitted("publisher-x", task(id, "train", null), false, null));
        send(tasksTopic, new TaskSubmitted("publisher-x", task(id, "train", null), false, null)); // identical: a no-op
        send(tasksTopic, new TaskSubmitted("publisher-x", task(id, "train", "a different statement"), false, null)); // conflict
        var broken = task(id + "-b", "train", null);
        broken.remove("test_command");
        send(tasksTopic, new TaskSubmitted("publisher-x", broken, false, null));
        send(tasksTopic, "junk", "{not json".getBytes());
        send(tasksTopic, new TaskSubmitted("publisher-x", task(id + "-nul", "train", "a NUL \u0000 PostgreSQL's jsonb refuses"), false, null));
        // asked for a new version, but refused (priority 0): no service may take it as v2
        send(tasksTopic, new TaskSubmitted("publisher-x", task(id, "train", "a refused resubmission"), true, 0));
        send(tasksTopic, new TaskSubmitted("publisher-x", task(id, "train", "a different statement"), true, null)); // asked for v2

        await("v2 of " + id, () -> count("SELECT count(*) FROM dispatcher.tasks WHERE task_id = $1", id) == 2);
        assertEquals(0, count("SELECT count(*) FROM dispatcher.tasks WHERE task_id = $1", id + "-own"), "the dispatcher's own announcement is not read back");
        var rejected = records(rejectedTopic, 5, WAIT).stream()
                .map(r -> ((EventCodec.Decoded.Ok<TaskRejected>) EventCodec.<TaskRejected>decode(Topic.TASKS_REJECTED, r.value())).envelope().payload())
                .toList();
        assertEquals(5, rejected.size(), rejected.toString());
        assertTrue(rejected.stream().anyMatch(r -> id.equals(r.taskId()) && r.reasons().getFirst().field().equals("priority")), rejected.toString());

        // the versions every other service holds: exactly the two the dispatcher stored, each with its content and hash
        var accepted = records(acceptedTopic, Integer.MAX_VALUE, Duration.ofSeconds(5)).stream()
                .map(r -> ((EventCodec.Decoded.Ok<TaskAccepted>) EventCodec.<TaskAccepted>decode(Topic.TASKS_ACCEPTED, r.value())).envelope().payload())
                .filter(a -> a.taskId().equals(id)).toList();
        assertEquals(List.of(1, 2), accepted.stream().map(TaskAccepted::version).toList(), accepted.toString());
        assertEquals("a different statement", accepted.get(1).task().get("problem_statement").asText());
        assertEquals(TaskVersioning.contentHash(accepted.get(1).task()), accepted.get(1).contentHash());
        assertEquals(List.of(id + ":1", id + ":2"), accepted.stream().map(TaskAccepted::key).toList());
        var resource = new org.apache.kafka.common.config.ConfigResource(org.apache.kafka.common.config.ConfigResource.Type.TOPIC, acceptedTopic);
        try (var admin = ai.openalice.rl.testkit.TestStack.kafkaAdmin()) {
            await("tasks.accepted compacted", () -> "compact".equals(cleanupPolicy(admin, resource)));
        }
        var nul = rejected.stream().filter(r -> (id + "-nul").equals(r.taskId())).findFirst().orElseThrow();
        assertTrue(nul.reasons().getFirst().message().startsWith("the task could not be stored: "), nul.toString());
        assertTrue(rejected.stream().anyMatch(r -> id.equals(r.taskId()) && r.reasons().getFirst().code().wire().equals("conflict")), rejected.toString());
        assertTrue(rejected.stream().anyMatch(r -> (id + "-b").equals(r.taskId()) && r.reasons().stream().anyMatch(e -> e.field().equals("test_command"))),
                rejected.toString());
        var junk = rejected.stream().filter(r -> r.originalPayload().equals("{not json")).findFirst().orElseThrow();
        assertEquals("malformed_json", junk.reasons().getFirst().code().wire());
        assertEquals("kafka", junk.origin().channel());
        var d = http(uri("/tasks/" + id), "GET", null);
        assertEquals(200, d.status());
        assertEquals(2, d.body().get("version").asInt());
        assertEquals("publisher-x", d.body().get("source").asText());
    }

    private static String cleanupPolicy(org.apache.kafka.clients.admin.Admin admin, org.apache.kafka.common.config.ConfigResource topic) {
        try {
            return admin.describeConfigs(List.of(topic)).all().get(10, java.util.concurrent.TimeUnit.SECONDS).get(topic).get("cleanup.policy").value();
        } catch (Exception e) {
            return null; // not there yet
        }
    }

    @Test
    void restIntakeAnswersPerTaskAndAnnouncesOnKafka() throws Exception {
        // eval-split tasks, though the dispatcher skips its own announcements: a training task read back after another
        // test's clean-up would be scheduled there
        var ok = http(uri("/tasks"), "POST", task("rest-1", "eval", null).toString());
        assertEquals(200, ok.status());
        assertEquals("added", ok.body().at("/tasks/0/status").asText());
        assertEquals("unchanged", http(uri("/tasks"), "POST", task("rest-1", "eval", null).toString()).body().at("/tasks/0/status").asText());
        var conflict = http(uri("/tasks"), "POST", task("rest-1", "eval", "changed").toString());
        assertEquals(409, conflict.status());
        assertTrue(conflict.body().get("detail").asText().contains("newVersion=true"), conflict.body().toString());

        var bad = task("rest-2", "eval", null);
        bad.put("split", "holdout");
        String jsonl = task("rest-3", "eval", null) + "\n" + bad + "\n{oops\n";
        var mixed = http(uri("/tasks"), "POST", jsonl);
        assertEquals(400, mixed.status());
        assertEquals(1, mixed.body().get("accepted").asInt());
        assertEquals("split", mixed.body().at("/tasks/1/errors/0/field").asText());
        assertEquals(3, mixed.body().at("/tasks/2/line").asInt());
        assertEquals("malformed_json", mixed.body().at("/tasks/2/errors/0/code").asText());
        assertEquals(404, http(uri("/tasks/nope"), "GET", null).status());
        var nul = http(uri("/tasks"), "POST", task("rest-nul", "eval", "a NUL \u0000 PostgreSQL's jsonb refuses").toString());
        assertEquals(400, nul.status(), "the database's refusal is the caller's problem, with the reason");
        assertTrue(nul.body().at("/tasks/0/errors/0/message").asText().startsWith("the task could not be stored: "), nul.body().toString());

        // accepted REST tasks reach the other services through tasks.accepted, once each
        await("rest-1 and rest-3 on tasks.accepted", () -> records(acceptedTopic, Integer.MAX_VALUE, Duration.ofSeconds(3)).stream()
                .map(r -> r.key()).toList().containsAll(List.of("rest-1:1", "rest-3:1")));
        assertEquals(1, records(acceptedTopic, Integer.MAX_VALUE, Duration.ofSeconds(3)).stream().filter(r -> r.key().equals("rest-1:1")).count());
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
            assertEquals(RolloutRequested.Mode.TRAIN, r.mode());
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
            send(verifiedTopic, new VerificationCompleted(t, g, m.rolloutId(), 0, solved ? VerificationStatus.RESOLVED : VerificationStatus.UNRESOLVED,
                    solved, Map.of(), Map.of(), List.of(), 10L, null, null));
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
        assertTrue(reqs.stream().allMatch(r -> r.mode() == RolloutRequested.Mode.EVAL && r.policyVersion() == 3 && run.equals(String.valueOf(r.evalRunId()))));
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

    static List<RolloutRequested> inGroup(List<RolloutRequested> all, UUID g) {
        return all.stream().filter(r -> r.groupId().equals(g)).sorted(java.util.Comparator.comparing(RolloutRequested::memberIndex)
                .thenComparing(RolloutRequested::attempt)).toList();
    }

    /** The rollouts requested since the last clean (matched against the groups in the database). */
    List<RolloutRequested> awaitRequests(int n) {
        var ids = new HashSet<UUID>();
        rows("SELECT rollout_id FROM dispatcher.rollouts WHERE state <> 'pending'").forEach(r -> ids.add(r.getUUID(0)));
        var out = new ArrayList<RolloutRequested>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (out.size() < n && System.nanoTime() < deadline) {
            out.clear();
            for (var rec : records(requestedTopic, 1, Duration.ofSeconds(5))) {
                var p = ((EventCodec.Decoded.Ok<RolloutRequested>) EventCodec.<RolloutRequested>decode(Topic.ROLLOUTS_REQUESTED, rec.value()))
                        .envelope().payload();
                if (ids.contains(p.rolloutId())) {
                    assertEquals(p.groupId().toString(), rec.key(), "keyed by group");
                    out.add(p);
                }
            }
            ids.clear();
            rows("SELECT rollout_id FROM dispatcher.rollouts WHERE state <> 'pending'").forEach(r -> ids.add(r.getUUID(0)));
        }
        out.sort(java.util.Comparator.comparing(RolloutRequested::memberIndex));
        return out;
    }
}
