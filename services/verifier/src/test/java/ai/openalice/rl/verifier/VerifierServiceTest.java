package ai.openalice.rl.verifier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.EventPayload;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.TaskSubmitted;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.events.VerificationCompleted;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.testkit.TestStack;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The verifier service on the real broker and database: verdicts for the example tasks, one
 * verdict per rollout however often it is delivered, infrastructure failures passed through,
 * malformed events to the dead-letter topic with the reason.
 */
@QuarkusTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class VerifierServiceTest {
    static final Path TASKS = Path.of("..", "..", "examples", "tasks", "calc.jsonl").toAbsolutePath().normalize();

    @ConfigProperty(name = "mp.messaging.incoming.tasks-submitted.topic")
    String tasksTopic;

    @ConfigProperty(name = "mp.messaging.incoming.rollouts-completed.topic")
    String rolloutsTopic;

    @ConfigProperty(name = "mp.messaging.outgoing.verifications-completed.topic")
    String verificationsTopic;

    @ConfigProperty(name = "mp.messaging.incoming.rollouts-completed.dead-letter-queue.topic")
    String deadLetterTopic;

    @Inject
    MeterRegistry registry;

    KafkaProducer<String, byte[]> producer;
    Task task;

    @BeforeAll
    void publishTheTask() throws Exception {
        producer = new KafkaProducer<>(TestStack.producerProperties());
        task = ((TaskReader.Line.Valid) TaskReader.read(TASKS).getFirst()).task();
        // On the wire, publishers send resolved (absolute) workspace paths.
        ObjectNode raw = task.raw();
        ((ObjectNode) raw.get("workspace")).put("path", TASKS.getParent().resolve("calc-repo").toString());
        send(tasksTopic, new TaskSubmitted("test", raw, false, null));
    }

    @AfterAll
    void close() {
        producer.close();
    }

    private void send(String topic, EventPayload payload) throws Exception {
        var env = Envelope.of(payload);
        producer.send(new ProducerRecord<>(topic, env.key(), EventCodec.encode(env))).get(30, TimeUnit.SECONDS);
    }

    private RolloutCompleted rollout(UUID rolloutId, Termination end, String patch) {
        return new RolloutCompleted(task.instanceId(), UUID.randomUUID(), rolloutId, 0, 1, 2, 1, "runner-test", end,
                end == Termination.INFRA_ERROR ? new RolloutCompleted.Failure("sandbox", "pod vanished") : null, patch,
                new TrajectoryRef.Inline(new Trajectory(List.of())), new RolloutCompleted.Stats(0, 0, 0, 0, 0, 0));
    }

    /**
     * The verification events for {@code rolloutId}: as soon as {@code expected} arrived, or — when
     * {@code settle} — everything that arrives within {@code wait} (to see that no second one comes).
     */
    private List<VerificationCompleted> verdictsFor(UUID rolloutId, Duration wait, int expected, boolean settle) throws InterruptedException {
        var props = TestStack.consumerProperties();
        var found = new ArrayList<VerificationCompleted>();
        try (var consumer = new KafkaConsumer<String, byte[]>(props)) {
            long deadline = System.nanoTime() + wait.toNanos();
            var parts = TestStack.awaitPartitions(consumer, verificationsTopic, wait);
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    var d = EventCodec.<VerificationCompleted>decode(Topic.VERIFICATIONS_COMPLETED, r.value());
                    var v = assertInstanceOf(EventCodec.Decoded.Ok.class, d, d::toString).envelope().payload();
                    if (((VerificationCompleted) v).rolloutId().equals(rolloutId)) {
                        found.add((VerificationCompleted) v);
                    }
                }
                if (found.size() > expected || (!settle && found.size() == expected)) {
                    break;
                }
            }
        }
        return found;
    }

    @Test
    void goldPatchIsResolvedOnceHoweverOftenItIsDelivered() throws Exception {
        UUID id = UUID.randomUUID();
        var event = rollout(id, Termination.SUBMITTED, task.patch());
        send(rolloutsTopic, event);
        var first = verdictsFor(id, Duration.ofSeconds(60), 1, false);
        assertEquals(1, first.size());
        assertEquals(VerificationStatus.RESOLVED, first.getFirst().status());
        assertEquals(TestStatus.PASSED, first.getFirst().failToPass().get("test_add_positive (tests.test_add.AddTest)"));

        double duplicatesBefore = registry.counter("verifier_duplicates_total").count();
        send(rolloutsTopic, event); // redelivered (a new envelope, the same rollout)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (registry.counter("verifier_duplicates_total").count() == duplicatesBefore && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(duplicatesBefore + 1, registry.counter("verifier_duplicates_total").count(), "the redelivery was seen and skipped");
        assertEquals(1, verdictsFor(id, Duration.ofSeconds(4), 1, true).size(), "still exactly one verdict for the rollout");
    }

    @Test
    void emptyPatchIsUnresolvedAndAnInfraFailureIsPassedThrough() throws Exception {
        UUID empty = UUID.randomUUID();
        send(rolloutsTopic, rollout(empty, Termination.SUBMITTED, ""));
        UUID infra = UUID.randomUUID();
        send(rolloutsTopic, rollout(infra, Termination.INFRA_ERROR, ""));
        var e = verdictsFor(empty, Duration.ofSeconds(60), 1, false);
        assertEquals(VerificationStatus.UNRESOLVED, e.getFirst().status());
        assertFalse(e.getFirst().resolved());
        var i = verdictsFor(infra, Duration.ofSeconds(60), 1, false);
        assertEquals(VerificationStatus.INFRA_ERROR, i.getFirst().status());
        assertTrue(i.getFirst().error().contains("sandbox: pod vanished"), i.getFirst().error());
    }

    @Test
    void malformedEventsGoToTheDeadLetterTopicWithTheReason() throws Exception {
        producer.send(new ProducerRecord<>(rolloutsTopic, "k", "{not json".getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
        try (var consumer = new KafkaConsumer<String, byte[]>(TestStack.consumerProperties())) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            var parts = TestStack.awaitPartitions(consumer, deadLetterTopic, Duration.ofSeconds(60));
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            String reason = null;
            while (reason == null && System.nanoTime() < deadline) {
                for (var r : consumer.poll(Duration.ofMillis(500))) {
                    var h = r.headers().lastHeader("dead-letter-reason");
                    reason = h == null ? "(no reason header)" : new String(h.value(), StandardCharsets.UTF_8);
                }
            }
            assertTrue(reason != null && reason.contains("not JSON"), String.valueOf(reason));
        }
    }
}
