package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.artifacts.S3ArtifactStore;
import ai.openalice.rl.artifacts.S3Settings;
import ai.openalice.rl.cli.suite.TinySwe;
import ai.openalice.rl.cli.train.Supervisor;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.TaskSubmitted;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Waits;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The loop end to end, every service a packaged process on the real broker and database: two
 * tiny-swe tasks published to Kafka → the dispatcher's groups of 2 → episodes in bubblewrap
 * sandboxes (a seeded random agent: no model needs to be good for the plumbing to be checked) →
 * hidden tests in the verifier → rubric rewards → a GRPO++ step in the trainer → checkpoint v1 →
 * inference serving it (or a later one: the loop keeps going), and the dispatcher sampling at it.
 */
class LoopIT {
    static final Path LOGS = Path.of("target", "e2e-logs").toAbsolutePath();
    final String suffix = ".e2e" + UUID.randomUUID().toString().substring(0, 8);

    /** Empty service schemas: each loop test starts from no state. */
    static void resetSchemas() throws Exception {
        try (var c = TestStack.openDatabase(); var st = c.createStatement()) {
            for (String schema : List.of("dispatcher", "runner", "verifier", "rubric", "trainer")) {
                st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    /** The packaged services as processes on the test broker and database, as alice-rl train runs them. */
    static Supervisor services(String suffix) throws Exception {
        var common = List.of("-Dalice.topic-suffix=" + suffix, "-Dkafka.bootstrap.servers=" + TestStack.kafkaBootstrap(),
                "-Dquarkus.datasource.jdbc.url=" + TestStack.jdbcUrl(), "-Dquarkus.datasource.reactive.url=" + System.getProperty("alice.db.reactive-url"),
                "-Dquarkus.datasource.username=" + TestStack.dbUser(), "-Dquarkus.datasource.password=" + TestStack.dbPassword(),
                "-Dai.djl.offline=true", "-Dai.djl.pytorch.num_threads=1");
        return new Supervisor(Path.of(System.getProperty("alice.services")).getParent(), LOGS, common);
    }

    /**
     * The loop with its artifacts in an S3 bucket (S3Proxy's): every trajectory is stored (none
     * inline) and read back from the bucket by rubric-prm and the trainer, the verifier's test logs go
     * there too, and inference serves v1 from the bucket's copy of the checkpoint (fetched into its
     * own cache, not read from the trainer's folder).
     */
    @Test
    void twoTasksBecomeAStepAndACheckpointThatInferenceServes() throws Exception {
        resetSchemas();
        Path suite = Path.of("target", "e2e-suite" + suffix).toAbsolutePath();
        TinySwe.generate(suite, 2, 1, 11);
        Path artifacts = Path.of("target", "e2e-artifacts" + suffix).toAbsolutePath();
        var s3settings = new S3Settings(Optional.of(URI.create(TestStack.s3Endpoint())), "us-east-1", true, Optional.of(TestStack.s3AccessKey()),
                Optional.of(TestStack.s3SecretKey()));
        String bucket = "alice-e2e-" + suffix.substring(".e2e".length());
        try (var s3 = S3ArtifactStore.client(s3settings); var s = services(suffix)) {
            s3.createBucket(r -> r.bucket(bucket));
            var inBucket = List.of("-Dalice.artifacts.bucket=s3://" + bucket + "/loop", "-Dalice.artifacts.s3.endpoint=" + TestStack.s3Endpoint(),
                    "-Dalice.artifacts.s3.path-style=true", "-Dalice.artifacts.s3.access-key=" + TestStack.s3AccessKey(),
                    "-Dalice.artifacts.s3.secret-key=" + TestStack.s3SecretKey());
            s.start("inference", with(List.of("-Dmp.messaging.incoming.checkpoints-published.auto.offset.reset=earliest",
                    "-Dinference.checkpoint-cache=" + artifacts.resolve("inference-cache")), inBucket));
            s.start("trainer", with(List.of("-Dtrainer.artifact-dir=" + artifacts.resolve("checkpoints"), "-Dtrainer.batch-groups=1",
                    "-Dtrainer.model.context-length=4096", "-Dtrainer.model.layers=1", "-Dtrainer.model.heads=2", "-Dtrainer.model.width=16",
                    "-Dtrainer.optim.micro-batch=1", "-Dtrainer.poll=PT0.5S",
                    // the random policy seldom solves a task: the profile's accuracy filter would leave no group to train on
                    "-Dtrainer.dynamic-sampling=reward"), inBucket));
            s.start("rubric-prm", inBucket);
            s.start("verifier", with(List.of("-Dverifier.sandbox-root=/tmp/alice-rl-e2e-verifier"), inBucket));
            s.start("sandbox-runner", with(List.of("-Drunner.policy=random", "-Drunner.random-submit-probability=0.5", "-Drunner.id=e2e-runner",
                    "-Drunner.sandbox-root=/tmp/alice-rl-e2e-runner", "-Drunner.artifact-dir=" + artifacts.resolve("trajectories"),
                    "-Drunner.inline-trajectory-bytes=0", "-Drunner.max-context-tokens=4096", "-Drunner.inference-url=" + s.uri("inference", "")), inBucket));
            s.start("task-dispatcher", List.of("-Ddispatcher.group-size=2", "-Ddispatcher.max-in-flight=4", "-Ddispatcher.pace.groups-per-version=0"));
            s.awaitReady(Duration.ofMinutes(3));

            publish(suite, suffix, 6);
            var v1 = awaitCheckpoint(suffix, 1, Duration.ofMinutes(8));
            assertEquals(1, v1.step());
            awaitServed(s, 1);
            var stats = EventCodec.mapper().readTree(s.get("task-dispatcher", "/stats"));
            assertTrue(stats.get("policyVersion").asLong() >= 1, "the dispatcher samples new groups at the trainer's version: " + stats);
            assertTrue(stats.at("/rollouts/scored").asLong() >= 2, stats.toString());
            var trainer = EventCodec.mapper().readTree(s.get("trainer", "/status"));
            assertTrue(trainer.get("samples.trained").asLong() >= 2, trainer.toString());
            var trajectories = s3.listObjectsV2(r -> r.bucket(bucket).prefix("loop/trajectories/")).contents();
            var logs = s3.listObjectsV2(r -> r.bucket(bucket).prefix("loop/logs/")).contents();
            assertTrue(trajectories.size() >= 2, "every trajectory trained on was stored in the bucket: " + trajectories);
            assertTrue(!logs.isEmpty(), "the verifier's test logs are in the bucket");
            assertEquals("s3://" + bucket + "/loop/checkpoints/v1/manifest.json", v1.manifest().uri(), "v1 is announced in the bucket");
            assertTrue(Files.isRegularFile(artifacts.resolve("inference-cache/v1/manifest.json")), "inference served the copy it fetched");
            assertTrue(!Files.exists(artifacts.resolve("trajectories")) || Files.list(artifacts.resolve("trajectories")).findAny().isEmpty(),
                    "nothing went to the runner's folder");
            System.out.printf("[e2e] v1 after %s; dispatcher %s; trainer %s; bucket: %d trajectories, %d logs%n", v1.metrics(), stats.get("rollouts"),
                    trainer.get("last"), trajectories.size(), logs.size());
        }
    }

    private static List<String> with(List<String> options, List<String> more) {
        var all = new ArrayList<>(options);
        all.addAll(more);
        return all;
    }

    /** The suite's training tasks on tasks.submitted, at most {@code maxSteps} turns each. */
    static void publish(Path suite, String suffix, int maxSteps) throws Exception {
        try (var producer = new KafkaProducer<String, byte[]>(TestStack.producerProperties())) {
            for (String line : Files.readAllLines(suite.resolve("train.jsonl"))) {
                var task = (ObjectNode) EventCodec.mapper().readTree(line);
                ((ObjectNode) task.get("workspace")).put("path", suite.resolve(task.at("/workspace/path").asText()).toString());
                ((ObjectNode) task.get("limits")).put("max_steps", maxSteps);
                var env = Envelope.of(new TaskSubmitted("e2e", task, false, null));
                producer.send(new ProducerRecord<>(Topic.TASKS_SUBMITTED.topicName() + suffix, env.key(), EventCodec.encode(env)))
                        .get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** Waits for inference to serve {@code version} or a later one (the loop keeps training). */
    static void awaitServed(Supervisor s, long version) throws Exception {
        try {
            Waits.until("inference serving v" + version + " or later", Duration.ofSeconds(90), () -> {
                boolean served = false;
                for (JsonNode m : EventCodec.mapper().readTree(s.get("inference", "/v1/models")).get("data")) {
                    served |= m.get("policy_version").asLong() >= version && m.get("current").asBoolean();
                }
                return served;
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("inference swapped to a trained checkpoint: " + s.get("inference", "/v1/models"), e);
        }
    }

    static CheckpointPublished awaitCheckpoint(String suffix, long version, Duration wait) throws Exception {
        var seen = new ArrayList<Long>();
        return TopicScan.<CheckpointPublished>first(Topic.CHECKPOINTS_PUBLISHED, suffix, wait, p -> seen.add(p.policyVersion())
                && p.policyVersion() == version).orElseThrow(() -> new AssertionError("no checkpoint v" + version + " within " + wait + " (saw "
                        + seen + "); see the logs in " + LOGS));
    }
}
