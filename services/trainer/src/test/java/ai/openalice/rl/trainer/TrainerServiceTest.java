package ai.openalice.rl.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.ArtifactRef;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.EventPayload;
import ai.openalice.rl.events.MaskKind;
import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.TrainingMetrics;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Topics;
import ai.openalice.rl.testkit.Waits;
import ai.openalice.rl.trainer.repository.TrainerStore;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.core.ConditionTimeoutException;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The trainer on the real broker and database (a tiny model, two groups per step, a checkpoint
 * every step, no staleness allowed): v0 at start; a partly solved group trained and an all-equal
 * one dropped; evaluation and stale groups never trained; an infrastructure failure outside the
 * baseline, its group trained at its deadline; redeliveries ignored; the ledger committed with
 * each checkpoint; an unreadable event in the dead-letter topic; retention dropping the
 * trajectories no step reads again while every ledger row stays.
 */
@QuarkusTest
@QuarkusTestResource(FreshSchema.class)
class TrainerServiceTest {
    static final Duration WAIT = Duration.ofSeconds(60);

    @ConfigProperty(name = "mp.messaging.incoming.rewards-scored.topic")
    String scoredTopic;

    @ConfigProperty(name = "mp.messaging.outgoing.checkpoints-published.topic")
    String checkpointsTopic;

    @ConfigProperty(name = "mp.messaging.outgoing.training-metrics.topic")
    String metricsTopic;

    @Inject
    Pool pool;

    @Inject
    TrainerStore store;

    long withTrajectory() {
        return pool.query("SELECT count(*) FROM trainer.samples WHERE trajectory IS NOT NULL").execute().await().atMost(WAIT).iterator().next().getLong(0);
    }

    static void send(String topic, String key, byte[] value) throws Exception {
        try (var p = new KafkaProducer<String, byte[]>(TestStack.producerProperties())) {
            p.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
        }
    }

    static void send(String topic, EventPayload payload) throws Exception {
        var env = Envelope.of(payload);
        send(topic, env.key(), EventCodec.encode(env));
    }

    static RewardScored scored(UUID group, UUID rollout, long version, int size, Integer rExec, boolean infra) {
        return scored(group, rollout, version, size, rExec, infra, RolloutRef.Mode.TRAIN, 1.0);
    }

    /** A scored member with its header: member index 0 (the trainer does not read it), sampled in {@code mode} at {@code temperature}. */
    static RewardScored scored(UUID group, UUID rollout, long version, int size, Integer rExec, boolean infra, RolloutRef.Mode mode, double temperature) {
        var ref = new RolloutRef("task-1", 1, null, group, rollout, 0, 1, size, version, mode, mode == RolloutRef.Mode.EVAL ? group : null,
                new RolloutRef.Sampling(temperature, 1.0, 16, null));
        var t = new Trajectory(List.of(new Turn(0, List.of(257, 10, 11), List.of(20, 21, 22, 258), List.of(-1.0, -1.5, -2.0, -0.5), version,
                new Action("submit", null, null), "Submitted.", 1, 1)));
        if (infra) {
            return new RewardScored(ref, true, "episode ended in infra_error", MaskKind.EPISODE_INFRA_ERROR, Termination.INFRA_ERROR, null, null,
                    0.8, null, null, List.of(), new TrajectoryRef.Inline(new Trajectory(List.of())), null);
        }
        double r = rExec == 1 ? 0.9 : 0.1;
        return new RewardScored(ref, false, null, null, Termination.SUBMITTED, rExec, 0.5, 0.8, r, 1, List.of(),
                new TrajectoryRef.Inline(t), null);
    }

    static List<ConsumerRecord<String, byte[]>> records(String topic, int atLeast) {
        return Topics.read(topic, atLeast, WAIT);
    }

    <T extends EventPayload> List<T> events(String topic, Topic t, int atLeast) {
        return records(topic, atLeast).stream().map(r -> ((EventCodec.Decoded.Ok<T>) EventCodec.<T>decode(t, r.value())).envelope().payload()).toList();
    }

    String groupState(UUID g) {
        var rows = pool.preparedQuery("SELECT state || coalesce(': ' || reason, '') FROM trainer.groups WHERE group_id = $1").execute(Tuple.of(g))
                .await().atMost(WAIT);
        return rows.iterator().hasNext() ? rows.iterator().next().getString(0) : null;
    }

    Long sampleStep(UUID rollout) {
        return pool.preparedQuery("SELECT step FROM trainer.samples WHERE rollout_id = $1").execute(Tuple.of(rollout)).await().atMost(WAIT)
                .iterator().next().getLong(0);
    }

    void awaitState(UUID g, String prefix) {
        try {
            Waits.until("group " + g + " " + prefix, WAIT, () -> groupState(g) instanceof String s && s.startsWith(prefix));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("group " + g + " is " + groupState(g) + ", expected " + prefix, e);
        }
    }

    @Test
    void scoredGroupsBecomeStepsAndCheckpoints() throws Exception {
        var v0 = this.<CheckpointPublished>events(checkpointsTopic, Topic.CHECKPOINTS_PUBLISHED, 1).getFirst();
        assertEquals(0, v0.policyVersion());
        Checkpoint.verify(Path.of(URI.create(v0.onnx().uri())).getParent());

        // step 1 (2 groups a batch): A is partly solved, B all solved (every reward equal: dropped at once), so A waits for C
        UUID a = UUID.randomUUID(), b = UUID.randomUUID(), cc = UUID.randomUUID();
        UUID a1 = UUID.randomUUID(), a2 = UUID.randomUUID();
        send(scoredTopic, scored(a, a1, 0, 2, 1, false));
        send(scoredTopic, scored(a, a2, 0, 2, 0, false));
        send(scoredTopic, scored(b, UUID.randomUUID(), 0, 2, 1, false));
        send(scoredTopic, scored(b, UUID.randomUUID(), 0, 2, 1, false));
        awaitState(b, "dropped: every valid reward equal: no learning signal");
        Thread.sleep(1000); // several polls
        assertEquals("open", groupState(a), "no step on half a batch: A waits for a second group that can teach");
        send(scoredTopic, scored(cc, UUID.randomUUID(), 0, 2, 0, false));
        send(scoredTopic, scored(cc, UUID.randomUUID(), 0, 2, 1, false));
        awaitState(a, "trained");
        assertEquals("trained", groupState(cc));
        assertEquals(1L, sampleStep(a1));
        assertEquals(1L, sampleStep(a2));
        var v1 = this.<CheckpointPublished>events(checkpointsTopic, Topic.CHECKPOINTS_PUBLISHED, 2).get(1);
        assertEquals(1, v1.policyVersion());
        assertEquals(1, v1.step());
        var m1 = this.<TrainingMetrics>events(metricsTopic, Topic.TRAINING_METRICS, 1).getFirst();
        assertEquals(1, m1.step());
        assertEquals(4, m1.samples());
        assertEquals(16, m1.tokens(), "4 completion tokens per rollout, prompt tokens masked");
        assertEquals(new TrainingMetrics.GroupCounts(0, 1, 2), m1.groups(), "every group screened for the step, the dropped B too");
        assertEquals(1L, m1.dropped().get("all_rewards_equal"));
        assertEquals(3.8 / 6, m1.meanReward(), 1e-12); // (0.9 + 0.1 + 0.9 + 0.9 + 0.1 + 0.9) / 6
        assertEquals(4.0 / 6, m1.rExecRate(), 1e-12);
        assertEquals(0.0, m1.clipFraction(), "one epoch: π_old is the current policy, ρ = 1");

        // a redelivered reward of a trained group changes nothing
        send(scoredTopic, scored(a, a1, 0, 2, 1, false));

        // evaluation, stale and other-temperature groups are never trained on; each sample's header says which it is
        // (before the header, an evaluation group was known from rollouts.requested, and trained on when its rewards came first)
        UUID e = UUID.randomUUID(), s = UUID.randomUUID(), hot = UUID.randomUUID();
        send(scoredTopic, scored(e, UUID.randomUUID(), 1, 2, 1, false, RolloutRef.Mode.EVAL, 1.0));
        send(scoredTopic, scored(e, UUID.randomUUID(), 1, 2, 0, false, RolloutRef.Mode.EVAL, 1.0));
        send(scoredTopic, scored(s, UUID.randomUUID(), 0, 2, 1, false));
        send(scoredTopic, scored(s, UUID.randomUUID(), 0, 2, 0, false));
        send(scoredTopic, scored(hot, UUID.randomUUID(), 1, 2, 1, false, RolloutRef.Mode.TRAIN, 0.7));
        send(scoredTopic, scored(hot, UUID.randomUUID(), 1, 2, 0, false, RolloutRef.Mode.TRAIN, 0.7));
        awaitState(e, "dropped: an evaluation group");
        awaitState(s, "dropped: stale: sampled at v0, trainer at v1 (max-staleness 0)");
        awaitState(hot, "dropped: sampled at temperature 0.7, the trainer computes log-probs at 1.0");

        // step 2: F (3 members, one infra failure: trained at its deadline on the other two) and H
        UUID f = UUID.randomUUID(), h = UUID.randomUUID(), infra = UUID.randomUUID();
        send(scoredTopic, scored(f, infra, 1, 3, null, true));
        send(scoredTopic, scored(f, UUID.randomUUID(), 1, 3, 1, false));
        send(scoredTopic, scored(f, UUID.randomUUID(), 1, 3, 0, false));
        send(scoredTopic, scored(h, UUID.randomUUID(), 1, 2, 1, false));
        send(scoredTopic, scored(h, UUID.randomUUID(), 1, 2, 0, false));
        awaitState(f, "trained");
        assertEquals("trained", groupState(h));
        assertNull(sampleStep(infra), "an infrastructure failure is never trained on");
        var m2 = this.<TrainingMetrics>events(metricsTopic, Topic.TRAINING_METRICS, 2).get(1);
        assertEquals(2, m2.step());
        assertEquals(4, m2.samples());
        assertEquals(1L, m2.dropped().get("evaluation"), "dropped while step 2's batch was filled");
        assertEquals(1L, m2.dropped().get("stale"));
        assertEquals(1L, m2.dropped().get("temperature"));
        assertEquals(1, m2.policyVersion());
        assertEquals(1, this.<TrainingMetrics>events(metricsTopic, Topic.TRAINING_METRICS, 2).stream().filter(m -> m.step() == 1).count(),
                "the redelivery made no step");

        // an unreadable event waits in the dead-letter topic with the reason
        send(scoredTopic, "junk", "{\"eventId\": 1}".getBytes());
        var dlq = records(scoredTopic.replace("rewards.scored", "rewards.scored.dlq"), 1);
        assertEquals(1, dlq.size());
        assertNotNull(dlq.getFirst().headers().lastHeader("dead-letter-reason"));
        assertTrue(new String(dlq.getFirst().headers().lastHeader("dead-letter-reason").value()).length() > 10);

        // retention: 17 samples — step 1: A, C (4); dropped: B, E, S, hot (8); step 2: F (2 trained + 1 infra), H (2). A group may
        // be dropped on its first member; the second of E, S or hot may still be on its way (another partition) and is kept all the same
        Waits.until("17 samples", WAIT.multipliedBy(2), () -> withTrajectory() >= 17);
        assertEquals(17, withTrajectory());
        var soon = Instant.now().plusSeconds(5);
        assertEquals(12, store.dropTrajectories(1, soon, 1000), "step 1's samples and the dropped groups'");
        assertEquals(5, withTrajectory(), "step 2's stay");
        assertEquals(2, store.dropTrajectories(2, soon, 2), "a batch is a batch");
        assertEquals(3, store.dropTrajectories(2, soon, 1000), "F's infrastructure failure goes with its settled group");
        assertEquals(0, store.dropTrajectories(2, soon, 1000));
        assertEquals(1L, sampleStep(a1), "the ledger stays");
        var ledger = pool.query("SELECT count(*), count(step), count(step) FILTER (WHERE reward IS NOT NULL) FROM trainer.samples").execute().await()
                .atMost(WAIT).iterator().next();
        assertEquals(List.of(17L, 8L, 8L), List.of(ledger.getLong(0), ledger.getLong(1), ledger.getLong(2)),
                "every row stays; the 8 trained (A, C, F's two, H) with their step and reward");

        // step 3: K's stored trajectory is not the one its event named (another sha256): K is dropped with the reason and the
        // step goes on with L and M — a trajectory that cannot be trained on is never a step failing for ever
        UUID k = UUID.randomUUID(), l = UUID.randomUUID(), mm = UUID.randomUUID(), k1 = UUID.randomUUID();
        var good = scored(k, k1, 2, 2, 1, false);
        byte[] bytes = EventCodec.mapper().writeValueAsBytes(((TrajectoryRef.Inline) good.trajectory()).trajectory());
        Path file = Files.write(Files.createTempFile("alice-rl-trajectory", ".json"), bytes);
        file.toFile().deleteOnExit();
        var stored = new TrajectoryRef.Stored(new ArtifactRef(file.toUri().toString(), "0".repeat(64), bytes.length));
        send(scoredTopic, new RewardScored(good.ref(), false, null, null, Termination.SUBMITTED, 1, 0.5, 0.8, 0.9, 1, List.of(), stored, null));
        send(scoredTopic, scored(k, UUID.randomUUID(), 2, 2, 0, false));
        send(scoredTopic, scored(l, UUID.randomUUID(), 2, 2, 1, false));
        send(scoredTopic, scored(l, UUID.randomUUID(), 2, 2, 0, false));
        send(scoredTopic, scored(mm, UUID.randomUUID(), 2, 2, 1, false));
        send(scoredTopic, scored(mm, UUID.randomUUID(), 2, 2, 0, false));
        awaitState(k, "dropped: the trajectory of " + k1 + " cannot be trained on");
        assertTrue(groupState(k).contains("sha256"), groupState(k));
        awaitState(l, "trained");
        awaitState(mm, "trained");
        var m3 = this.<TrainingMetrics>events(metricsTopic, Topic.TRAINING_METRICS, 3).get(2);
        assertEquals(3, m3.step());
        assertEquals(1L, m3.dropped().get("trajectory_unusable"));

        // a member arriving after its group was trained is kept in the ledger, untrained, and never trains
        UUID lateOne = UUID.randomUUID();
        long before = withTrajectory();
        assertFalse(store.add(scored(l, lateOne, 2, 2, 1, false)), "its group is settled");
        assertEquals(before + 1, withTrajectory());
        assertNull(sampleStep(lateOne));
        assertEquals("trained", groupState(l));
    }
}
