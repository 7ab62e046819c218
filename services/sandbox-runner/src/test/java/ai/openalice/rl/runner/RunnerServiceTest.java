package ai.openalice.rl.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.AgentTask;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.RolloutRequested;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.events.task.TaskVersioning;
import ai.openalice.rl.harness.Harness;
import ai.openalice.rl.harness.VerifierOptions;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Topics;
import ai.openalice.rl.testkit.Waits;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The runner on the real broker and database: the oracle's rollout produces a patch the verifier
 * harness resolves; a rollout is published once however often it is requested; a stale lease (a
 * dead runner) is taken over, a live one is left alone.
 */
@QuarkusTest
class RunnerServiceTest {
    static final Path TASKS = Path.of("..", "..", "examples", "tasks", "calc.jsonl").toAbsolutePath().normalize();

    @ConfigProperty(name = "mp.messaging.incoming.rollouts-requested.topic")
    String requestsTopic;

    @ConfigProperty(name = "mp.messaging.outgoing.rollouts-completed.topic")
    String completedTopic;

    @Inject
    MeterRegistry metrics;

    static Task task() {
        return ((TaskReader.Line.Valid) TaskReader.read(TASKS).getFirst()).task();
    }

    private static RolloutRequested request(UUID rolloutId) {
        Task t = task();
        AgentTask view = t.agentView(1, TaskVersioning.contentHash(t.raw()));
        var ref = new RolloutRef(t.instanceId(), 1, view.contentHash(), UUID.randomUUID(), rolloutId, 0, 1, 2, 0, RolloutRef.Mode.TRAIN, null,
                new RolloutRef.Sampling(1.0, 1.0, 256, 1L));
        return new RolloutRequested(ref, view, Instant.now().plusSeconds(600));
    }

    private void send(RolloutRequested r) throws Exception {
        try (var p = new KafkaProducer<String, byte[]>(TestStack.producerProperties())) {
            var env = Envelope.of(r);
            p.send(new ProducerRecord<>(requestsTopic, env.key(), EventCodec.encode(env))).get(30, TimeUnit.SECONDS);
        }
    }

    private List<RolloutCompleted> completions(UUID rolloutId, Duration wait, boolean settle) throws Exception {
        var found = new ArrayList<RolloutCompleted>();
        // settle: read for the whole wait (a second completion would show); else stop at the first
        for (var rec : Topics.read(completedTopic, settle ? Integer.MAX_VALUE : 1, wait, Duration.ZERO, r -> completed(r).rolloutId().equals(rolloutId))) {
            found.add(completed(rec));
        }
        return found;
    }

    private static RolloutCompleted completed(ConsumerRecord<String, byte[]> rec) {
        var d = EventCodec.<RolloutCompleted>decode(Topic.ROLLOUTS_COMPLETED, rec.value());
        return (RolloutCompleted) assertInstanceOf(EventCodec.Decoded.Ok.class, d).envelope().payload();
    }

    private static void lease(UUID rolloutId, String owner, String heartbeatAgo) throws Exception {
        try (var db = TestStack.openDatabase(); var st = db.prepareStatement(
                "INSERT INTO runner.leases (rollout_id, attempt, owner, heartbeat_at, state) VALUES (?, 1, ?, now() - ?::interval, 'running')")) {
            st.setObject(1, rolloutId);
            st.setString(2, owner);
            st.setString(3, heartbeatAgo);
            st.executeUpdate();
        }
    }

    @Test
    void theOraclesRolloutIsPublishedOnceAndItsPatchResolvesTheTask() throws Exception {
        UUID id = UUID.randomUUID();
        var requested = request(id);
        send(requested);
        var first = completions(id, Duration.ofSeconds(60), false);
        assertEquals(1, first.size());
        RolloutCompleted done = first.getFirst();
        assertEquals(Termination.SUBMITTED, done.termination());
        assertEquals(requested.ref(), done.ref(), "the header as requested, carried to the verifier");
        assertEquals(TaskVersioning.contentHash(task().raw()), done.ref().contentHash());
        assertEquals(2, ((TrajectoryRef.Inline) done.trajectory()).trajectory().turns().size());
        try (var sandboxes = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(Path.of("/tmp/alice-rl-test-runner-verify")))) {
            var verdict = new Harness(sandboxes, VerifierOptions.defaults()).verify(task(), done.patch());
            assertEquals(VerificationStatus.RESOLVED, verdict.status(), done.patch());
        }
        double skipped = metrics.counter("runner_skipped_total").count();
        send(request(id)); // requested again: already published
        Waits.until("the request skipped", Duration.ofSeconds(30), () -> metrics.counter("runner_skipped_total").count() != skipped);
        assertEquals(skipped + 1, metrics.counter("runner_skipped_total").count());
        assertEquals(1, completions(id, Duration.ofSeconds(3), true).size(), "published exactly once");
    }

    @Test
    void aDeadRunnersLeaseIsTakenOverAndALiveOneIsLeftAlone() throws Exception {
        UUID orphan = UUID.randomUUID();
        lease(orphan, "runner-that-died", "1 hour");
        send(request(orphan));
        var taken = completions(orphan, Duration.ofSeconds(60), false);
        assertEquals(1, taken.size());
        assertTrue(!taken.getFirst().runnerId().equals("runner-that-died"));

        UUID held = UUID.randomUUID();
        lease(held, "runner-still-alive", "0 seconds");
        send(request(held));
        assertEquals(0, completions(held, Duration.ofSeconds(4), true).size(), "a live lease is not run twice");
    }
}
