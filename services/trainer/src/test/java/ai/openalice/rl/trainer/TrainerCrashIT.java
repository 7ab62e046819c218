package ai.openalice.rl.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.EventPayload;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.RunProfile;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.TrainingMetrics;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Topics;
import ai.openalice.rl.testkit.Waits;
import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The packaged trainer killed (SIGKILL) after a step it had not yet checkpointed, and started
 * again: it resumes from the last checkpoint (weights, optimizer state, step, version), trains
 * the lost step's samples again, and the committed ledger holds every sample exactly once.
 * Checkpoints every 2 steps, one group per step.
 */
class TrainerCrashIT {
    final String suffix = ".it" + UUID.randomUUID().toString().substring(0, 8);
    final Path artifacts = Path.of("target", "it-artifacts" + suffix).toAbsolutePath();

    private Process trainer(String name) throws Exception {
        int http;
        try (var socket = new ServerSocket(0)) {
            http = socket.getLocalPort();
        }
        var cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.http.port=" + http, "-Dalice.topic-suffix=" + suffix, "-Dtrainer.artifact-dir=" + artifacts, "-Dalice.auth.enabled=false",
                "-Dtrainer.batch-groups=1", "-Dtrainer.checkpoint-every=2", "-Dtrainer.poll=PT0.2S", "-Dtrainer.max-staleness=100",
                "-Dtrainer.dynamic-sampling=reward",
                "-Dtrainer.model.context-length=64", "-Dtrainer.model.layers=1", "-Dtrainer.model.heads=2", "-Dtrainer.model.width=16",
                "-Dai.djl.offline=true",
                "-Dkafka.bootstrap.servers=" + TestStack.kafkaBootstrap(),
                "-Dquarkus.datasource.jdbc.url=" + TestStack.jdbcUrl(),
                "-Dquarkus.datasource.reactive.url=" + System.getProperty("alice.db.reactive-url"),
                "-Dquarkus.datasource.username=" + TestStack.dbUser(), "-Dquarkus.datasource.password=" + TestStack.dbPassword(),
                "-Dmp.messaging.incoming.rewards-scored.session.timeout.ms=6000",
                "-Dmp.messaging.incoming.rewards-scored.heartbeat.interval.ms=1000",
                "-jar", System.getProperty("trainer.app")));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(new File("target/" + name + ".log")).start();
    }

    /** A group of two sampled at the packaged trainer's temperature (the run profile's), which it would refuse otherwise. */
    private void group(UUID g) throws Exception {
        double t = Double.parseDouble(RunProfile.TEMPERATURE);
        TrainerServiceTest.send("rewards.scored" + suffix, TrainerServiceTest.scored(g, UUID.randomUUID(), 0, 2, 1, false, RolloutRef.Mode.TRAIN, t));
        TrainerServiceTest.send("rewards.scored" + suffix, TrainerServiceTest.scored(g, UUID.randomUUID(), 0, 2, 0, false, RolloutRef.Mode.TRAIN, t));
    }

    /** Every event on {@code topic}, read afresh until {@code until} holds of them (the trainer restarts meanwhile), within 2 minutes. */
    private <T extends EventPayload> List<T> events(String topic, Topic t, Predicate<List<T>> until) {
        List<List<T>> seen = new ArrayList<>(List.of(List.of()));
        try {
            // a topic not made yet (Topics.read times out on it) is a condition not met yet
            Waits.await(topic, Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(300)).ignoreException(ConditionTimeoutException.class).until(() -> {
                List<T> found = Topics.read(topic, Integer.MAX_VALUE, Duration.ofSeconds(1)).stream()
                        .map(r -> ((EventCodec.Decoded.Ok<T>) EventCodec.<T>decode(t, r.value())).envelope().payload()).toList();
                seen.set(0, found);
                return until.test(found);
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(topic + ": condition not met; saw " + seen.getFirst(), e);
        }
        return seen.getFirst();
    }

    private static long count(String sql) throws Exception {
        try (Connection c = TestStack.openDatabase(); var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void aKilledTrainerResumesFromItsCheckpointAndTrainsEverySampleOnce() throws Exception {
        try (Connection c = TestStack.openDatabase(); var st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS trainer CASCADE");
        }
        Process a = trainer("trainer-A");
        Process b = null;
        try {
            String metrics = "training.metrics" + suffix;
            String checkpoints = "checkpoints.published" + suffix;
            for (int i = 0; i < 3; i++) {
                group(UUID.randomUUID());
            }
            this.<TrainingMetrics>events(metrics, Topic.TRAINING_METRICS, l -> l.stream().anyMatch(m -> m.step() == 3));
            a.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // step 3 trained, not yet checkpointed
            assertEquals(2, this.<CheckpointPublished>events(checkpoints, Topic.CHECKPOINTS_PUBLISHED, l -> l.size() >= 2).size(), "v0 and v1 (step 2)");

            b = trainer("trainer-B");
            group(UUID.randomUUID());
            var published = this.<CheckpointPublished>events(checkpoints, Topic.CHECKPOINTS_PUBLISHED, l -> l.size() >= 4);
            var again = published.get(2);
            assertEquals(1, again.policyVersion(), "B announces the checkpoint it resumed, with its terms, before it trains");
            // the packaged trainer's terms: the run profile's temperature, batch-groups 1 × checkpoint-every 2 groups a version, its context 64
            assertEquals(new CheckpointPublished.Terms(Double.parseDouble(RunProfile.TEMPERATURE),
                    Boolean.parseBoolean(RunProfile.COMPACT_FILTER), 100, 2, 64), again.terms());
            var v2 = published.get(3);
            assertEquals(2, v2.policyVersion());
            assertEquals(4, v2.step());
            assertTrue(Files.readString(Path.of("target/trainer-B.log")).contains("resumed from checkpoint v1 (step 2)"));
            var resumed = Checkpoint.load(Path.of(URI.create(v2.onnx().uri())).getParent());
            assertEquals(4, resumed.optimizerStep(), "optimizer state resumed at 2 updates, then 2 more");

            var steps = this.<TrainingMetrics>events(metrics, Topic.TRAINING_METRICS, l -> l.stream().anyMatch(m -> m.step() == 4));
            assertEquals(2, steps.stream().filter(m -> m.step() == 3).count(), "step 3 was lost with trainer A and trained again by B");
            assertEquals(8, count("SELECT count(*) FROM trainer.samples"));
            assertEquals(8, count("SELECT count(*) FROM trainer.samples WHERE step IS NOT NULL"), "no sample lost");
            assertEquals(2, count("SELECT count(*) FROM trainer.samples WHERE step = 3"), "the lost step's samples: once in the ledger");
            assertEquals(4, count("SELECT count(DISTINCT step) FROM trainer.samples"));
            assertEquals(3, count("SELECT count(*) FROM trainer.checkpoints"));
        } finally {
            a.destroyForcibly();
            if (b != null) {
                b.destroy();
                b.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }
}
