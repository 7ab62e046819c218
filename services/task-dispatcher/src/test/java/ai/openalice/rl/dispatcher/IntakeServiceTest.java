package ai.openalice.rl.dispatcher;

import static ai.openalice.rl.dispatcher.DispatcherFixture.await;
import static ai.openalice.rl.dispatcher.DispatcherFixture.http;
import static ai.openalice.rl.dispatcher.DispatcherFixture.records;
import static ai.openalice.rl.dispatcher.DispatcherFixture.send;
import static ai.openalice.rl.dispatcher.DispatcherFixture.sendAs;
import static ai.openalice.rl.dispatcher.DispatcherFixture.task;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.TaskAccepted;
import ai.openalice.rl.events.TaskRejected;
import ai.openalice.rl.events.TaskSubmitted;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.task.TaskVersioning;
import ai.openalice.rl.testkit.TestStack;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.ConfigResource;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Task intake on the real broker and database: Kafka and REST, field-by-field rejections, versions,
 * and the dispatcher as the one authority on them (what it accepted, and only that, on the compacted
 * tasks.accepted).
 */
@QuarkusTest
class IntakeServiceTest {
    static final Duration WAIT = DispatcherServiceTest.WAIT;

    @ConfigProperty(name = "mp.messaging.incoming.tasks-submitted.topic")
    String tasksTopic;

    @ConfigProperty(name = "mp.messaging.outgoing.tasks-rejected.topic")
    String rejectedTopic;

    @ConfigProperty(name = "mp.messaging.outgoing.tasks-accepted-out.topic")
    String acceptedTopic;

    @TestHTTPResource("/")
    URL base;

    @Inject
    Pool pool;

    @BeforeEach
    void clean() {
        DispatcherFixture.reset(pool);
    }

    URI uri(String path) {
        return URI.create(base.toString()).resolve(path);
    }

    long count(String sql, Object... args) {
        return DispatcherFixture.rows(pool, sql, args).getFirst().getLong(0);
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
                .filter(a -> a.taskId().equals(id))
                .sorted(Comparator.comparingInt(TaskAccepted::version)).toList(); // two keys: two partitions, in no set order
        assertEquals(List.of(1, 2), accepted.stream().map(TaskAccepted::version).toList(), accepted.toString());
        assertEquals("a different statement", accepted.get(1).task().get("problem_statement").asText());
        assertEquals(TaskVersioning.contentHash(accepted.get(1).task()), accepted.get(1).contentHash());
        assertEquals(List.of(id + ":1", id + ":2"), accepted.stream().map(TaskAccepted::key).toList());
        var resource = new ConfigResource(ConfigResource.Type.TOPIC, acceptedTopic);
        try (var admin = TestStack.kafkaAdmin()) {
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

    private static String cleanupPolicy(Admin admin, ConfigResource topic) {
        try {
            return admin.describeConfigs(List.of(topic)).all().get(10, TimeUnit.SECONDS).get(topic).get("cleanup.policy").value();
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
}
