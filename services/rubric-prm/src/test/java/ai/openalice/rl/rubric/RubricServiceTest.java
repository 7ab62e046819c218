package ai.openalice.rl.rubric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.EventPayload;
import ai.openalice.rl.events.MaskKind;
import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.TaskAccepted;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.events.VerificationCompleted;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.events.task.TaskVersioning;
import ai.openalice.rl.testkit.FuzzDoor;
import ai.openalice.rl.testkit.Mutations;
import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Topics;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/** rubric-prm on the real broker and database: composed rewards, masked infra failures, one score per rollout, the REST endpoints. */
@QuarkusTest
class RubricServiceTest {
    static final Path TASKS = Path.of("..", "..", "examples", "tasks", "calc.jsonl").toAbsolutePath().normalize();
    static final ObjectMapper M = new ObjectMapper();

    @ConfigProperty(name = "mp.messaging.incoming.tasks-accepted.topic")
    String tasksTopic;

    @ConfigProperty(name = "mp.messaging.incoming.verifications-completed.topic")
    String verificationsTopic;

    @ConfigProperty(name = "mp.messaging.outgoing.rewards-scored.topic")
    String rewardsTopic;

    @TestHTTPResource("/")
    URL base;

    static Task task() {
        return ((TaskReader.Line.Valid) TaskReader.read(TASKS).getFirst()).task();
    }

    /** A clean fix: view the file, edit it, run the tests, submit. */
    static Trajectory cleanFix() {
        var view = JsonNodeFactory.instance.objectNode().put("command", "view").put("path", "calc/ops.py");
        var edit = JsonNodeFactory.instance.objectNode().put("command", "str_replace").put("path", "calc/ops.py");
        var test = JsonNodeFactory.instance.objectNode().put("command", "python3 -m unittest");
        return new Trajectory(List.of(turn(0, "file_editor", view, "     1\tdef add"), turn(1, "file_editor", edit, "Edited calc/ops.py."),
                turn(2, "bash", test, "[exit code 0]\nOK"), turn(3, "submit", JsonNodeFactory.instance.objectNode(), "Submitted.")));
    }

    static Turn turn(int i, String tool, ObjectNode args, String obs) {
        return new Turn(i, List.of(1), List.of(2), List.of(-0.5), 0, new Action(tool, args, null), obs, 1, 1);
    }

    private void send(String topic, EventPayload p) throws Exception {
        try (var producer = new KafkaProducer<String, byte[]>(TestStack.producerProperties())) {
            var env = Envelope.of(p);
            producer.send(new ProducerRecord<>(topic, env.key(), EventCodec.encode(env))).get(30, TimeUnit.SECONDS);
        }
    }

    private List<RewardScored> rewards(UUID rolloutId, Duration wait, boolean settle) throws Exception {
        var found = new ArrayList<RewardScored>();
        // settle: read for the whole wait (a second reward would show); else stop at the first
        for (var rec : Topics.read(rewardsTopic, settle ? Integer.MAX_VALUE : 1, wait, Duration.ZERO, r -> reward(r, rolloutId) != null)) {
            found.add(reward(rec, rolloutId));
        }
        return found;
    }

    /** The reward {@code rec} carries for {@code rolloutId}; null for another rollout's or a record that is not one. */
    private static RewardScored reward(ConsumerRecord<String, byte[]> rec, UUID rolloutId) {
        return EventCodec.<RewardScored>decode(Topic.REWARDS_SCORED, rec.value()) instanceof EventCodec.Decoded.Ok<RewardScored> ok
                && ok.envelope().payload().rolloutId().equals(rolloutId) ? ok.envelope().payload() : null;
    }

    static RolloutRef ref(UUID group, UUID id) {
        return new RolloutRef(task().instanceId(), 1, null, group, id, 0, 1, 2, 0, RolloutRef.Mode.TRAIN, null, new RolloutRef.Sampling(0.7, 1.0, 128, null));
    }

    /** A verdict as the verifier sends it: the header, and the episode it judged (here a clean fix with {@code patch}). */
    private VerificationCompleted verdict(UUID group, UUID id, VerificationStatus status, Termination end, String patch) {
        boolean ok = status == VerificationStatus.RESOLVED;
        return new VerificationCompleted(ref(group, id), status, ok,
                Map.of("test_add_positive (tests.test_add.AddTest)", ok ? TestStatus.PASSED : TestStatus.FAILED), Map.of(), List.of(), 100, null,
                status == VerificationStatus.INFRA_ERROR ? "sandbox died" : null,
                new VerificationCompleted.Episode(end, patch, new TrajectoryRef.Inline(cleanFix())));
    }

    /** No rollouts.completed is sent: the verdict alone is what rubric-prm scores. */
    @Test
    void resolvedRolloutsGetTheComposedRewardOnceAndInfraFailuresAreMasked() throws Exception {
        send(tasksTopic, new TaskAccepted(task().instanceId(), 1, TaskVersioning.contentHash(task().raw()), task().raw()));
        UUID group = UUID.randomUUID();
        UUID good = UUID.randomUUID();
        var verdict = verdict(group, good, VerificationStatus.RESOLVED, Termination.SUBMITTED, task().patch());
        send(verificationsTopic, verdict);
        var r = rewards(good, Duration.ofSeconds(60), false);
        assertEquals(1, r.size());
        RewardScored s = r.getFirst();
        assertEquals(1, s.rExec());
        assertEquals(verdict.ref(), s.ref(), "the header passes through unchanged");
        // clean fix on the example task (limits.max_steps 20): localisation 1, edit constraints 1, discipline 1,
        // budget 1 − 4/20 = 0.8 → s = 0.3 + 0.3 + 0.25 + 0.15·0.8 = 0.97 ; R = 0.8 + 0.2·0.97
        assertEquals(0.97, s.sPrm(), 1e-9);
        assertEquals(0.8 + 0.2 * 0.97, s.reward(), 1e-9);
        assertEquals(4, s.criteria().size());

        send(verificationsTopic, verdict); // redelivered
        assertEquals(1, rewards(good, Duration.ofSeconds(4), true).size(), "one score per rollout");

        UUID broken = UUID.randomUUID();
        send(verificationsTopic, verdict(group, broken, VerificationStatus.INFRA_ERROR, Termination.SUBMITTED, ""));
        RewardScored masked = rewards(broken, Duration.ofSeconds(60), false).getFirst();
        assertTrue(masked.masked());
        assertNull(masked.reward());
        assertTrue(masked.maskReason().contains("sandbox died"), masked.maskReason());
        assertEquals(MaskKind.VERIFICATION_INFRA_ERROR, masked.maskKind());

        UUID lost = UUID.randomUUID(); // the episode itself failed: the verifier passed that through
        send(verificationsTopic, verdict(group, lost, VerificationStatus.INFRA_ERROR, Termination.INFRA_ERROR, ""));
        assertEquals(MaskKind.EPISODE_INFRA_ERROR, rewards(lost, Duration.ofSeconds(60), false).getFirst().maskKind());
    }

    @Test
    void scoreAndStepUtilityEndpoints() throws Exception {
        var http = HttpClient.newHttpClient();
        ObjectNode body = M.createObjectNode();
        body.set("task", task().raw());
        body.set("trajectory", EventCodec.mapper().valueToTree(cleanFix()));
        body.put("patch", task().patch());
        body.put("resolved", false);
        var resp = http.send(HttpRequest.newBuilder(URI.create(base + "score")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, resp.statusCode(), resp.body());
        var json = M.readTree(resp.body());
        assertEquals(0.2 * 0.97, json.get("reward").asDouble(), 1e-9); // failing: (1 − γ)·s_prm

        body.putArray("candidates").add(M.createObjectNode().put("tool", "submit"))
                .add(M.createObjectNode().put("tool", "file_editor").put("command", "view").put("subject", "calc/ops.py"));
        var u = M.readTree(http.send(HttpRequest.newBuilder(URI.create(base + "step-utility")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString()).body());
        assertEquals(1.0, u.get("utilities").get(0).asDouble(), 1e-12); // edited and tested: submitting is right
        assertEquals(0.8, u.get("utilities").get(1).asDouble(), 1e-12); // viewing a gold file

        var bad = http.send(HttpRequest.newBuilder(URI.create(base + "score")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"trajectory\": {\"turns\": []}}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(400, bad.statusCode());
        assertEquals("task (the task object, with its gold patch and tests) is required", M.readTree(bad.body()).get("detail").asText());
    }

    /** Generated bad bodies (seeded) at both doors: 200 or a 400 problem naming what is wrong, never a 5xx. */
    @Test
    void generatedBadBodiesAreProblemsNeverA5xx() {
        ObjectNode body = M.createObjectNode();
        body.set("task", task().raw());
        body.set("trajectory", EventCodec.mapper().valueToTree(cleanFix()));
        body.put("patch", task().patch());
        body.put("resolved", false);
        var wrong = FuzzDoor.send(URI.create(base + "score"), new Mutations(9L).of(body, 200),
                Set.of(200, 400));
        assertEquals(List.of(), wrong, String.join("\n", wrong));
        body.putArray("candidates").add(M.createObjectNode().put("tool", "submit"));
        wrong = FuzzDoor.send(URI.create(base + "step-utility"), new Mutations(10L).of(body, 200),
                Set.of(200, 400));
        assertEquals(List.of(), wrong, String.join("\n", wrong));
    }
}
