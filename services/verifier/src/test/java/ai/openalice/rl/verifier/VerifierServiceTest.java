package ai.openalice.rl.verifier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.EventPayload;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.TaskAccepted;
import ai.openalice.rl.events.TaskSubmitted;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.events.VerificationCompleted;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskParser;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.events.task.TaskVersioning;
import ai.openalice.rl.servicekit.Inbox;
import ai.openalice.rl.servicekit.TaskReplica;
import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Topics;
import ai.openalice.rl.testkit.Waits;
import ai.openalice.rl.verifier.repository.VerificationRepository;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;
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

    @ConfigProperty(name = "mp.messaging.incoming.tasks-accepted.topic")
    String acceptedTopic;

    /** Where publishers send tasks: the dispatcher's input, which the verifier must not read. */
    String submittedTopic;

    @ConfigProperty(name = "mp.messaging.incoming.rollouts-completed.topic")
    String rolloutsTopic;

    @ConfigProperty(name = "mp.messaging.outgoing.verifications-completed.topic")
    String verificationsTopic;

    @ConfigProperty(name = "mp.messaging.incoming.rollouts-completed.dead-letter-queue.topic")
    String deadLetterTopic;

    @Inject
    Inbox inbox;

    @Inject
    MeterRegistry registry;

    @Inject
    Pool pool;

    KafkaProducer<String, byte[]> producer;
    Task task;
    String contentHash;

    @BeforeAll
    void publishTheTask() throws Exception {
        producer = new KafkaProducer<>(TestStack.producerProperties());
        task = ((TaskReader.Line.Valid) TaskReader.read(TASKS).getFirst()).task();
        // On the wire, publishers send resolved (absolute) workspace paths.
        ObjectNode raw = task.raw();
        ((ObjectNode) raw.get("workspace")).put("path", TASKS.getParent().resolve("calc-repo").toString());
        task = ((TaskParser.Result.Valid) new TaskParser(Path.of("/")).parse(raw)).task();
        contentHash = TaskVersioning.contentHash(raw);
        submittedTopic = acceptedTopic.replace(Topic.TASKS_ACCEPTED.topicName(), Topic.TASKS_SUBMITTED.topicName());
        send(acceptedTopic, new TaskAccepted(task.instanceId(), 1, contentHash, raw));
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
        return rollout(rolloutId, end, patch, 1, contentHash);
    }

    private RolloutCompleted rollout(UUID rolloutId, Termination end, String patch, int taskVersion, String hash) {
        var ref = new RolloutRef(task.instanceId(), taskVersion, hash, UUID.randomUUID(), rolloutId, 1, 1, 2, 0, RolloutRef.Mode.TRAIN, null,
                new RolloutRef.Sampling(0.7, 1.0, 128, 5L));
        return new RolloutCompleted(ref, "runner-test", end,
                end == Termination.INFRA_ERROR ? new RolloutCompleted.Failure("sandbox", "pod vanished") : null, patch,
                new TrajectoryRef.Inline(new Trajectory(List.of())), new RolloutCompleted.Stats(0, 0, 0, 0, 0, 0));
    }

    /**
     * The verification events for {@code rolloutId}: as soon as {@code expected} arrived, or — when
     * {@code settle} — everything that arrives within {@code wait} (to see that no second one comes).
     */
    private List<VerificationCompleted> verdictsFor(UUID rolloutId, Duration wait, int expected, boolean settle) throws InterruptedException {
        var found = new ArrayList<VerificationCompleted>();
        // settle: read on for the whole wait unless more than expected came (a duplicate); else stop at expected
        for (var r : Topics.read(verificationsTopic, settle ? expected + 1 : expected, wait, Duration.ZERO, r -> verdict(r).rolloutId().equals(rolloutId))) {
            found.add(verdict(r));
        }
        return found;
    }

    private static VerificationCompleted verdict(ConsumerRecord<String, byte[]> r) {
        var d = EventCodec.<VerificationCompleted>decode(Topic.VERIFICATIONS_COMPLETED, r.value());
        return (VerificationCompleted) assertInstanceOf(EventCodec.Decoded.Ok.class, d, d::toString).envelope().payload();
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
        assertEquals(event.ref(), first.getFirst().ref(), "the header passes through unchanged");
        assertEquals(new VerificationCompleted.Episode(Termination.SUBMITTED, task.patch(), event.trajectory()), first.getFirst().episode(),
                "the episode it judged is forwarded, for rubric-prm");

        double duplicatesBefore = registry.counter("verifier_duplicates_total").count();
        send(rolloutsTopic, event); // redelivered (a new envelope, the same rollout)
        Waits.until("the redelivery seen", Duration.ofSeconds(30), () -> registry.counter("verifier_duplicates_total").count() != duplicatesBefore);
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
        // the tests ran and failed: the patch's fault, with the run's exit status and output
        assertEquals(null, e.getFirst().explanation().cause());
        assertTrue(e.getFirst().explanation().exitCode() != 0, "the test command failed");
        assertTrue(e.getFirst().explanation().logTail().contains("FAIL"), e.getFirst().explanation().logTail());
        // the whole test output, in the artifact store, named with its sha256 and size
        var log = e.getFirst().log();
        assertNotNull(log, "the test log is stored and named");
        byte[] stored = Files.readAllBytes(Path.of(URI.create(log.uri())));
        assertEquals(log.bytes(), stored.length);
        assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(stored)), log.sha256());
        assertTrue(new String(stored, StandardCharsets.UTF_8).endsWith(e.getFirst().explanation().logTail()), "the event's tail is the log's end");
        var i = verdictsFor(infra, Duration.ofSeconds(60), 1, false);
        assertEquals(VerificationStatus.INFRA_ERROR, i.getFirst().status());
        assertTrue(i.getFirst().error().contains("sandbox: pod vanished"), i.getFirst().error());
        assertEquals("infra", i.getFirst().explanation().cause());
        assertNull(i.getFirst().log(), "nothing ran: no log");
    }

    /** A diff the runner left out for its size is no fix: unresolved, the patch's fault, without a sandbox. */
    @Test
    void aDiffLeftOutForItsSizeIsUnresolvedWithTheReason() throws Exception {
        UUID id = UUID.randomUUID();
        var r = rollout(id, Termination.SUBMITTED, "");
        send(rolloutsTopic, new RolloutCompleted(r.ref(), r.runnerId(), r.termination(), null, "", r.trajectory(), r.stats(), 2_000_000L));
        var v = verdictsFor(id, Duration.ofSeconds(60), 1, false).getFirst();
        assertEquals(VerificationStatus.UNRESOLVED, v.status());
        assertEquals("patch_failed", v.explanation().cause());
        assertEquals("the agent's diff was 2000000 bytes, over the runner's limit, and was left out: no fix to test", v.error());
    }

    /**
     * The dispatcher alone decides versions. A resubmission with newVersion that the dispatcher rejected
     * (priority 0 here) is on tasks.submitted, and a replica that versioned tasks.submitted itself took it
     * as v2; then the dispatcher's real v2 (other content) arrived as v3 there, and a rollout of v2 was
     * judged against the rejected body's hidden tests. Now v2 is what tasks.accepted says it is.
     */
    @Test
    void aVersionIsWhatTheDispatcherAcceptedNotWhatWasSubmitted() throws Exception {
        ObjectNode rejected = task.raw().deepCopy();
        rejected.put("problem_statement", "a resubmission the dispatcher rejected (priority 0)");
        send(submittedTopic, new TaskSubmitted("test", rejected, true, 0));
        ObjectNode v2 = task.raw().deepCopy();
        v2.put("problem_statement", "v2 as the dispatcher accepted it");
        String v2Hash = TaskVersioning.contentHash(v2);
        send(acceptedTopic, new TaskAccepted(task.instanceId(), 2, v2Hash, v2));

        UUID id = UUID.randomUUID();
        send(rolloutsTopic, rollout(id, Termination.SUBMITTED, task.patch(), 2, v2Hash));
        var v = verdictsFor(id, Duration.ofSeconds(60), 1, false);
        assertEquals(VerificationStatus.RESOLVED, v.getFirst().status(), String.valueOf(v.getFirst().error()));
        var rows = pool.preparedQuery("SELECT version, content_hash FROM verifier.tasks WHERE task_id = $1 ORDER BY version")
                .execute(Tuple.of(task.instanceId())).await().atMost(Duration.ofSeconds(10));
        var versions = new ArrayList<String>();
        rows.forEach(r -> versions.add(r.getInteger("version") + ":" + r.getString("content_hash")));
        assertEquals(List.of("1:" + contentHash, "2:" + v2Hash), versions, "exactly the dispatcher's versions, nothing from tasks.submitted");
    }

    /** A replica is a function of the compacted topic alone: an empty schema fed the topic from its start holds what the verifier holds. */
    @Test
    void theTopicAloneRebuildsTheReplica() throws Exception {
        var wait = Duration.ofSeconds(30);
        pool.query("CREATE SCHEMA IF NOT EXISTS verifier_rebuilt").execute().await().atMost(wait);
        pool.query("CREATE TABLE IF NOT EXISTS verifier_rebuilt.tasks (LIKE verifier.tasks INCLUDING ALL)").execute().await().atMost(wait);
        pool.query("TRUNCATE verifier_rebuilt.tasks").execute().await().atMost(wait);
        var rebuilt = new TaskReplica(pool, "verifier_rebuilt");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String live = "SELECT version || ':' || content_hash AS v FROM verifier.tasks WHERE task_id = $1 ORDER BY version";
        List<String> held;
        do { // the verifier may still be storing what the other tests sent
            held = column(live, task.instanceId());
            try (var consumer = new KafkaConsumer<String, byte[]>(TestStack.consumerProperties())) {
                var parts = TestStack.awaitPartitions(consumer, acceptedTopic, wait);
                consumer.assign(parts);
                consumer.seekToBeginning(parts);
                var end = consumer.endOffsets(parts);
                while (parts.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                    for (var r : consumer.poll(Duration.ofMillis(500))) {
                        // the malformed record another test sends is left out, as the service's inbox leaves it
                        if (EventCodec.<TaskAccepted>decode(Topic.TASKS_ACCEPTED, r.value()) instanceof EventCodec.Decoded.Ok<TaskAccepted> ok) {
                            rebuilt.upsert(ok.envelope().payload());
                        }
                    }
                }
            }
        } while (!held.equals(column(live.replace("verifier.tasks", "verifier_rebuilt.tasks"), task.instanceId())) && System.nanoTime() < deadline);
        assertFalse(held.isEmpty());
        assertEquals(held, column(live.replace("verifier.tasks", "verifier_rebuilt.tasks"), task.instanceId()));
    }

    private List<String> column(String sql, String taskId) {
        var out = new ArrayList<String>();
        pool.preparedQuery(sql).execute(Tuple.of(taskId)).await().atMost(Duration.ofSeconds(30))
                .forEach(r -> out.add(r.getString(0)));
        return out;
    }

    @Test
    void aRolloutOfOtherContentThanTheReplicaHoldsIsAnInfraErrorNamingBothHashes() throws Exception {
        UUID id = UUID.randomUUID();
        String other = "0".repeat(64);
        send(rolloutsTopic, rollout(id, Termination.SUBMITTED, task.patch(), 1, other));
        var v = verdictsFor(id, Duration.ofSeconds(90), 1, false);
        assertEquals(VerificationStatus.INFRA_ERROR, v.getFirst().status(), "never a verdict against other hidden tests");
        assertTrue(v.getFirst().error().contains(other) && v.getFirst().error().contains(contentHash), v.getFirst().error());
    }

    @Test
    void aMalformedTaskRecordGoesToItsDeadLetterTopic() throws Exception {
        producer.send(new ProducerRecord<>(acceptedTopic, "k:1", "{\"type\":\"tasks.accepted\"}".getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
        String reason = deadLetterReason(inbox.deadLetterTopic(Topic.TASKS_ACCEPTED));
        assertTrue(reason != null && reason.contains("schemaVersion"), String.valueOf(reason));
    }

    @Test
    void malformedEventsGoToTheDeadLetterTopicWithTheReason() throws Exception {
        producer.send(new ProducerRecord<>(rolloutsTopic, "k", "{not json".getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
        String reason = deadLetterReason(deadLetterTopic);
        assertTrue(reason != null && reason.contains("not JSON"), String.valueOf(reason));
    }

    /** The dead-letter-reason of the first record on {@code topic} (null when none came within a minute). */
    private String deadLetterReason(String topic) {
        var records = Topics.read(topic, 1, Duration.ofSeconds(60));
        if (records.isEmpty()) {
            return null;
        }
        var h = records.getFirst().headers().lastHeader("dead-letter-reason");
        return h == null ? "(no reason header)" : new String(h.value(), StandardCharsets.UTF_8);
    }

    /** A variant of the calc task with another id and test command, published as the dispatcher would. */
    private RolloutCompleted variant(String id, String testCommand, String patch) throws Exception {
        ObjectNode raw = task.raw().deepCopy();
        raw.put("instance_id", id).put("test_command", testCommand);
        String hash = TaskVersioning.contentHash(raw);
        send(acceptedTopic, new TaskAccepted(id, 1, hash, raw));
        var ref = new RolloutRef(id, 1, hash, UUID.randomUUID(), UUID.randomUUID(), 1, 1, 2, 0, RolloutRef.Mode.TRAIN, null,
                new RolloutRef.Sampling(0.7, 1.0, 128, 5L));
        return new RolloutCompleted(ref, "runner-test", Termination.SUBMITTED, null, patch, new TrajectoryRef.Inline(new Trajectory(List.of())),
                new RolloutCompleted.Stats(0, 0, 0, 0, 0, 0));
    }

    /**
     * Tests that never report are judged by the gold patch of the same task version, once: when it
     * fails the same way the environment is at fault (an infrastructure error, never a reward of 0);
     * when it runs the tests, the candidate broke the build and its verdict stands.
     */
    @Test
    void anEnvironmentThatCannotRunTheTestsIsNeverAReward() throws Exception {
        var broken = variant("example__calc-broken-env", "python3 -c 'import no_such_module' && python3 -m unittest -v", task.patch());
        send(rolloutsTopic, broken);
        var v = verdictsFor(broken.rolloutId(), Duration.ofSeconds(90), 1, false).getFirst();
        assertEquals(VerificationStatus.INFRA_ERROR, v.status(), v.error());
        assertEquals("environment", v.explanation().cause());
        assertTrue(v.error().contains("the gold patch fails the same way"), v.error());

        // the candidate's own patch breaks the import the test command needs; the gold patch does not
        String breaking = task.patch().replace("+    return a + b", "+    return a + (b");
        var mine = variant("example__calc-import-first", "python3 -c 'import calc.ops' && python3 -m unittest -v", breaking);
        send(rolloutsTopic, mine);
        var u = verdictsFor(mine.rolloutId(), Duration.ofSeconds(90), 1, false).getFirst();
        assertEquals(VerificationStatus.UNRESOLVED, u.status(), u.error());
        assertTrue(u.error().startsWith("the candidate's patch breaks the build or the test run"), u.error());
        assertEquals(null, u.explanation().cause());
    }

    /**
     * Retention by hand, kept 14 days: a verification finished 15 days ago goes; one finished 13
     * days ago stays, and so does a claim still running since 20 days ago (never deleted: it is no
     * verdict yet). With a batch of 1, two old ones take two statements.
     */
    @Test
    void finishedVerificationsGoAfterTheWindowAndRunningClaimsNever() {
        var repository = Arc.container().instance(VerificationRepository.class).get();
        String task = "retention-" + UUID.randomUUID();
        UUID old1 = UUID.randomUUID(), old2 = UUID.randomUUID(), recent = UUID.randomUUID(), running = UUID.randomUUID();
        for (Object[] row : new Object[][] {{old1, "done", 15}, {old2, "done", 16}, {recent, "done", 13}, {running, "running", 20}}) {
            pool.preparedQuery("""
                    INSERT INTO verifier.verifications (rollout_id, task_id, task_version, group_id, policy_version, state, claimed_by, claimed_at,
                      finished_at) VALUES ($1, $2, 1, $1, 0, $3, 'test', now() - make_interval(days => $4),
                      CASE WHEN $3 = 'done' THEN now() - make_interval(days => $4) END)""")
                    .execute(Tuple.of(row[0], task, row[1], row[2])).await().indefinitely();
        }
        int first = repository.pruneFinished(Duration.ofDays(14), 1);
        int second = repository.pruneFinished(Duration.ofDays(14), 1);
        assertEquals(1, first);
        assertEquals(1, second);
        var left = new TreeSet<String>();
        pool.preparedQuery("SELECT rollout_id FROM verifier.verifications WHERE task_id = $1").execute(Tuple.of(task))
                .await().indefinitely().forEach(r -> left.add(r.getUUID("rollout_id").toString()));
        assertEquals(new TreeSet<>(List.of(recent.toString(), running.toString())), left);
    }
}
