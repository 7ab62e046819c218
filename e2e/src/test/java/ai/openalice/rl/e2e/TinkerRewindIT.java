package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.RunProfile;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.testkit.PythonReference;
import ai.openalice.rl.testkit.RealTinker;
import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Waits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The whole trainer goes back to its last checkpoint when the Tinker engine loses steps it took
 * since: the packaged trainer on an engine of the test's own (a checkpoint every 2 steps), fed
 * scored groups on rewards.scored. After step 1 the engine is killed and started again — its saved
 * states kept, its models gone — and the next step finds the model lost with a step no saved state
 * holds: the trainer rewinds to v0 (TrainingLoop.rewind), trains step 1's group again and then the
 * next, and checkpoint v1 holds step 2, each group trained once in the ledger.
 */
class TinkerRewindIT {
    final String suffix = ".e2erw" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void stepsTheEngineLostAreTrainedAgainFromTheLastCheckpoint() throws Exception {
        LoopIT.resetSchemas();
        Path state = Path.of("target", "tinker-rewind" + suffix).toAbsolutePath();
        try (var engine = RealTinker.own(state.resolve("engine")); var s = LoopIT.services(suffix)) {
            s.start("trainer", List.of("-Dtrainer.artifact-dir=" + state.resolve("checkpoints"), "-Dtrainer.batch-groups=1",
                    "-Dtrainer.checkpoint-every=2", "-Dtrainer.learner=tinker", "-Dtrainer.optim.clip-norm=0", "-Dtrainer.tinker.url=" + engine.url(),
                    "-Dtrainer.tinker.base-model=" + RealTinker.baseModel(), "-Dtrainer.init-model=" + PythonReference.qwen3Tiny(),
                    "-Dtrainer.lora.rank=4", "-Dtrainer.poll=PT0.5S", "-Dtrainer.export-onnx=false", "-Dtrainer.dynamic-sampling=none"));
            s.awaitReady(Duration.ofMinutes(3));
            LoopIT.awaitCheckpoint(suffix, 0, Duration.ofMinutes(2));

            UUID a = UUID.randomUUID(), b = UUID.randomUUID();
            publish(a);
            Waits.until("step 1", Duration.ofMinutes(3), () -> EventCodec.mapper().readTree(s.get("trainer", "/status")).path("step").asLong() == 1);
            engine.restart(); // step 1 is on no saved state: v0 holds step 0
            publish(b);

            var v1 = LoopIT.awaitCheckpoint(suffix, 1, Duration.ofMinutes(5));
            assertEquals(2, v1.step(), "v1 holds A's step, taken again, and B's");
            String log = Files.readString(LoopIT.LOGS.resolve("trainer.log"));
            assertTrue(log.contains("1 step(s) taken since its last saved state (step 0)") && log.contains("going back to the last checkpoint"),
                    "the trainer said it went back (see " + LoopIT.LOGS.resolve("trainer.log") + ")");
            var status = EventCodec.mapper().readTree(s.get("trainer", "/status"));
            assertEquals(2, status.path("step").asLong());
            assertEquals(4, status.path("samples.trained").asLong(), "A's two members and B's, each once: " + status);
        }
    }

    /** A scored group of two members (rewards 1 and 0), sampled at v0 at the run profile's temperature. */
    private void publish(UUID group) throws Exception {
        try (var p = new KafkaProducer<String, byte[]>(TestStack.producerProperties())) {
            for (int member = 0; member < 2; member++) {
                var ref = new RolloutRef("task-rw", 1, null, group, UUID.randomUUID(), member, 1, 2, 0, RolloutRef.Mode.TRAIN, null,
                        new RolloutRef.Sampling(Double.parseDouble(RunProfile.TEMPERATURE), 1.0, 16, null));
                var t = new Trajectory(List.of(new Turn(0, List.of(257, 10, 11), List.of(20 + member, 21, 22, 258), List.of(-1.0, -1.5, -2.0, -0.5),
                        0, new Action("submit", null, null, false), "Submitted.", 1, 1)));
                int rExec = member == 0 ? 1 : 0;
                var scored = new RewardScored(ref, false, null, null, Termination.SUBMITTED, rExec, 0.5, 0.8, rExec == 1 ? 0.9 : 0.1, 1, List.of(),
                        new TrajectoryRef.Inline(t), null);
                var env = Envelope.of(scored);
                p.send(new ProducerRecord<>(Topic.REWARDS_SCORED.topicName() + suffix, env.key(), EventCodec.encode(env))).get(30, TimeUnit.SECONDS);
            }
        }
    }
}
