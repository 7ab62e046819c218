package ai.openalice.rl.trainer.tinker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.model.learner.Learner;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.testkit.RealTinker;
import ai.openalice.rl.tinker.LossFn;
import ai.openalice.rl.tinker.TinkerClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once across an engine restart, on a real SkyRL server of the test's own that is killed
 * and started again (its database and saved states kept, its models' weights gone): a learner
 * whose last step is saved makes its model again from the saved state and takes the next step
 * once — as a learner resumed from that state does, and with the gradient a killed trainer had
 * half-sent to the old model nowhere; a learner whose model the engine dropped with a step taken
 * since its last save cannot, and says how many steps were lost (the trainer then goes back to its
 * last checkpoint).
 */
class TinkerRestartTest {
    private static float[] logprobs(TinkerClient client, String model, SequenceBatch b, int seq) {
        return client.forward(model, seq, TinkerBatch.rows(b), LossFn.CROSS_ENTROPY, Map.of()).logprobs(0);
    }

    @Test
    void aRestartedEngineIsReattachedFromTheSavedStateAndStepsSinceItAreReportedLost(@TempDir Path tmp) {
        SequenceBatch b = TinkerBatchTest.batch();
        try (var engine = RealTinker.own(tmp.resolve("engine"));
                var learner = TinkerLearner.create(new TinkerClient(engine.url(), null, TinkerClient.Listener.NONE), TinkerLearnerTest.model(11),
                        TinkerLearnerTest.SETTINGS);
                var other = new TinkerClient(engine.url(), null, TinkerClient.Listener.NONE)) {
            other.createSession(List.of("alice-rl-test"));
            learner.rl(b);
            learner.checkpoint(tmp.resolve("v1"), "hf", 1, 1);
            TinkerState saved = TinkerState.read(tmp.resolve("v1")).orElseThrow();
            // a trainer killed between forward_backward and optim_step left a gradient on the model; then the engine dies
            other.forwardBackward(learner.modelId(), 901, TinkerBatch.rows(b, null, 8), LossFn.PPO, TinkerBatch.clip(TinkerLearnerTest.SETTINGS.loss()));
            String before = learner.modelId();
            engine.restart();

            Learner.StepStats stepped = learner.rl(b);
            assertEquals(2, learner.step());
            assertTrue(!learner.modelId().equals(before), "a new model on the engine");
            try (var reference = TinkerLearner.resume(new TinkerClient(engine.url(), null, TinkerClient.Listener.NONE), saved,
                    TinkerLearnerTest.model(11), TinkerLearnerTest.SETTINGS)) {
                Learner.StepStats once = reference.rl(b);
                assertEquals(once.loss(), stepped.loss(), 1e-6, "the step's loss, from the saved state");
                float[] here = logprobs(other, learner.modelId(), b, 1001);
                float[] there = logprobs(other, reference.modelId(), b, 1001);
                for (int t = 0; t < here.length; t++) {
                    assertEquals(there[t], here[t], 1e-5, "after the step, token " + (t + 1) + ": applied once, the stray gradient nowhere");
                }
            }

            // the engine drops the model (as it does a session silent for 300 s) with a step taken since the last save
            other.unloadModel(learner.modelId());
            var lost = assertThrows(TinkerLearner.StepsLostException.class, () -> learner.rl(b));
            assertTrue(lost.getMessage().contains("1 step(s) taken since its last saved state (step 1)"), lost.getMessage());
        }
    }
}
