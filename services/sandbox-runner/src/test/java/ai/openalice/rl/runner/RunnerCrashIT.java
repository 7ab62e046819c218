package ai.openalice.rl.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.AgentTask;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.RolloutRequested;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.task.Limits;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Topics;
import ai.openalice.rl.testkit.Waits;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.File;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A runner process killed (SIGKILL) or stopped (SIGTERM) in the middle of an episode: once its
 * lease is stale or handed back and Kafka rebalances, a second runner process runs the rollout
 * again, and the rollout is published exactly once, by the survivor. A stopped runner does not
 * send the request it could not finish to the dead-letter topic.
 */
class RunnerCrashIT {
    static final ObjectMapper JSON = new ObjectMapper();
    final String suffix = ".it" + UUID.randomUUID().toString().substring(0, 8);
    final AtomicInteger calls = new AtomicInteger();
    final AtomicBoolean finish = new AtomicBoolean();

    /** A slow stand-in for the inference service: the agent sleeps turn after turn until told to finish. */
    private HttpServer fakeModel() throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        s.createContext("/v1/completions", ex -> {
            ex.getRequestBody().readAllBytes();
            calls.incrementAndGet();
            String text = finish.get() ? "call: submit\n" : "call: bash\ncommand: sleep 1\n";
            int[] ids = new ByteTokenizer().encode(text);
            byte[] body = JSON.writeValueAsBytes(Map.of("policy_version", 0, "choices", List.of(Map.of("text", text, "tokens", ids,
                    "finish_reason", "stop", "logprobs", Map.of("token_logprobs", new double[ids.length])))));
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        s.start();
        return s;
    }

    private Process runner(String id, int modelPort) throws Exception {
        int http;
        try (var socket = new ServerSocket(0)) {
            http = socket.getLocalPort();
        }
        var cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.http.port=" + http, "-Drunner.id=" + id, "-Drunner.policy=http", "-Dalice.auth.enabled=false",
                "-Drunner.inference-url=http://127.0.0.1:" + modelPort, "-Dalice.topic-suffix=" + suffix,
                "-Dkafka.bootstrap.servers=" + TestStack.kafkaBootstrap(),
                "-Dquarkus.datasource.jdbc.url=" + TestStack.jdbcUrl(),
                "-Dquarkus.datasource.reactive.url=" + System.getProperty("alice.db.reactive-url"),
                "-Dquarkus.datasource.username=" + TestStack.dbUser(), "-Dquarkus.datasource.password=" + TestStack.dbPassword(),
                "-Dmp.messaging.incoming.rollouts-requested.session.timeout.ms=6000",
                "-Dmp.messaging.incoming.rollouts-requested.heartbeat.interval.ms=1000",
                "-Drunner.lease-timeout=PT4S", "-Drunner.heartbeat-interval=1s", "-Drunner.sandbox-root=/tmp/alice-rl-it-runner",
                "-jar", System.getProperty("runner.app")));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(new File("target/" + id + ".log")).start();
    }

    private RolloutRequested request(UUID rolloutId) {
        Path tasks = Path.of("..", "..", "examples", "tasks", "calc.jsonl").toAbsolutePath().normalize();
        Task t = ((TaskReader.Line.Valid) TaskReader.read(tasks).getFirst()).task();
        var view = new AgentTask(t.instanceId(), 1, null, t.problemStatement(), t.workspace(), new Limits(40, null, 300, 60));
        var ref = new RolloutRef(t.instanceId(), 1, null, UUID.randomUUID(), rolloutId, 0, 1, 1, 0, RolloutRef.Mode.TRAIN, null,
                new RolloutRef.Sampling(1.0, 1.0, 64, 1L));
        return new RolloutRequested(ref, view, Instant.now().plusSeconds(600));
    }

    private List<RolloutCompleted> completions(UUID rolloutId, Duration wait, boolean settle) throws Exception {
        String topic = "rollouts.completed" + suffix;
        var found = new ArrayList<RolloutCompleted>();
        // settle: read for the whole wait (a second completion would show); else stop at the first
        for (var rec : Topics.read(topic, settle ? Integer.MAX_VALUE : 1, wait, Duration.ZERO, r -> completed(r, rolloutId) != null)) {
            found.add(completed(rec, rolloutId));
        }
        return found;
    }

    /** The completion {@code rec} carries for {@code rolloutId}; null for another rollout's or a record that is not one. */
    private static RolloutCompleted completed(ConsumerRecord<String, byte[]> rec, UUID rolloutId) {
        var d = EventCodec.<RolloutCompleted>decode(Topic.ROLLOUTS_COMPLETED, rec.value());
        return d instanceof EventCodec.Decoded.Ok<RolloutCompleted> ok && ok.envelope().payload().rolloutId().equals(rolloutId)
                ? ok.envelope().payload() : null;
    }

    /** Records of the request's dead-letter topic for this rollout. */
    private int deadLetters(UUID rolloutId) throws Exception {
        String topic = "rollouts.requested.dlq" + suffix;
        int n = 0;
        try (var c = new KafkaConsumer<String, byte[]>(TestStack.consumerProperties())) {
            if (!c.listTopics().containsKey(topic)) {
                return 0;
            }
            var parts = c.partitionsFor(topic).stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (System.nanoTime() < deadline) {
                for (var rec : c.poll(Duration.ofMillis(300))) {
                    if (new String(rec.value(), StandardCharsets.UTF_8).contains(rolloutId.toString())) {
                        n++;
                    }
                }
            }
        }
        return n;
    }

    @ParameterizedTest(name = "killed: {0}")
    @ValueSource(booleans = {true, false})
    void aRolloutOfAKilledOrStoppedRunnerIsRerunAndPublishedOnce(boolean killed) throws Exception {
        HttpServer model = fakeModel();
        Process a = runner("runner-A", model.getAddress().getPort());
        Process b = null;
        try {
            UUID id = UUID.randomUUID();
            try (var p = new KafkaProducer<String, byte[]>(TestStack.producerProperties())) {
                var env = Envelope.of(request(id));
                p.send(new ProducerRecord<>("rollouts.requested" + suffix, env.key(), EventCodec.encode(env))).get(30, TimeUnit.SECONDS);
            }
            Waits.until("runner A to start the episode (see target/runner-A.log)", Duration.ofSeconds(90), () -> calls.get() >= 3);
            if (killed) {
                a.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL mid-episode: no shutdown hook, no lease handed back
            } else {
                a.destroy(); // SIGTERM mid-episode: the lease is handed back, the episode fails as the service closes
                assertTrue(a.waitFor(60, TimeUnit.SECONDS), "runner A did not stop; see target/runner-A.log");
            }
            finish.set(true);
            b = runner("runner-B", model.getAddress().getPort());
            var done = completions(id, Duration.ofSeconds(120), false);
            assertEquals(1, done.size(), "see target/runner-B.log");
            assertEquals("runner-B", done.getFirst().runnerId());
            assertEquals(Termination.SUBMITTED, done.getFirst().termination());
            assertEquals(1, completions(id, Duration.ofSeconds(5), true).size(), "published exactly once");
            assertEquals(0, deadLetters(id), "the request is not dead-lettered");
        } finally {
            a.destroyForcibly();
            if (b != null) {
                b.destroy();
                b.waitFor(30, TimeUnit.SECONDS);
            }
            model.stop(0);
        }
    }

}
