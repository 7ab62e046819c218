package ai.openalice.rl.trainer.tinker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.model.learner.Learner;
import ai.openalice.rl.model.learner.LrSchedule;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.testkit.RealTinker;
import ai.openalice.rl.tinker.LossFn;
import ai.openalice.rl.tinker.TinkerClient;
import ai.openalice.rl.tinker.TinkerModelLostException;
import ai.openalice.rl.tinker.TinkerRejectedException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Tinker learner's steps on the real engine (SkyRL's Tinker server, JAX on CPU, the tiny Qwen3), on {@link TinkerBatchTest}'s batch. */
class TinkerLearnerTest {
    static final TinkerLearner.Settings SETTINGS = new TinkerLearner.Settings(PolicyLossConfig.grpoPlusPlus(8), LrSchedule.constant(0.05, 0),
            0.9, 0.999, 1e-8, 0, 64, true);
    private static TinkerClient client;

    @BeforeAll
    static void connect() {
        client = new TinkerClient(RealTinker.qwen3Tiny(), null, TinkerClient.Listener.NONE);
        client.createSession(List.of("alice-rl-learner"));
    }

    @AfterAll
    static void close() {
        client.close();
    }

    static TinkerLearner.Model model(long seed) {
        return new TinkerLearner.Model(RealTinker.baseModel(), Path.of(RealTinker.baseModel()), 4, seed, true);
    }

    /** Per row, the log-probabilities of its targets now (seq ids far from the learner's). */
    private static float[][] logprobs(String model, SequenceBatch b, int seq) {
        var r = client.forward(model, seq, TinkerBatch.rows(b), LossFn.CROSS_ENTROPY, Map.of());
        return new float[][] {r.logprobs(0), r.logprobs(1)};
    }

    @Test
    void aGrpoStepMovesEachEpisodeByItsAdvantageAndASecondSendingIsNotAppliedAgain() {
        String model = client.createLoraModel(RealTinker.baseModel(), 4, 5L);
        // the batch's episodes as the model itself would have sampled them: its own log-probabilities as the rollout's
        float[][] before = logprobs(model, TinkerBatchTest.batch(), 1001);
        SequenceBatch b = TinkerBatchTest.batch(new double[] {before[0][1], before[0][2]}, new double[] {before[1][0], before[1][1], before[1][2]});
        var learner = new TinkerLearner(client, model, model(5), SETTINGS, 0);
        Learner.StepStats stats = learner.rl(b);
        assertEquals(1, learner.step());
        assertEquals(0, stats.clipFraction(), "π_old from the learner's own forward: every ratio is 1");
        assertEquals(5, stats.tokens());
        assertTrue(stats.gradNorm() > 0, "the engine's gradient norm: " + stats.gradNorm());
        // at ratio 1 and TIS weights 1 the loss is Σ −coef·A: −(2·1 + 3·(−0.5)) / 16
        assertEquals(-0.5 / 16, stats.loss(), 1e-5);
        float[][] after = logprobs(model, b, 1002);
        // The step ascends the advantage-weighted log-likelihood: Σ A·Δlogp over the completion tokens is positive
        // (episode 1, advantage +1: targets 1 and 2 of row 0; episode 2, advantage −0.5: targets 0 to 2 of row 1).
        double objective = (after[0][1] - before[0][1]) + (after[0][2] - before[0][2])
                - 0.5 * ((after[1][0] - before[1][0]) + (after[1][1] - before[1][1]) + (after[1][2] - before[1][2]));
        assertTrue(objective > 0, "Σ A·Δlogp = " + objective);
        // A learner restarted before its ledger recorded the step sends the same step again: the engine answers
        // with the futures it has (same seq ids, same bodies) and applies nothing twice.
        var restarted = new TinkerLearner(client, model, model(5), SETTINGS, 0);
        Learner.StepStats again = restarted.rl(b);
        assertEquals(stats.loss(), again.loss(), 0, "the same future's loss");
        float[][] replayed = logprobs(model, b, 1003);
        assertArrayEquals(after[0], replayed[0], 0f, "no second step");
        assertArrayEquals(after[1], replayed[1], 0f, "no second step");
    }

    @Test
    void aBatchTheEngineRefusedLeavesItsSequenceIdsUsedAndTheNextBatchIsTaken() {
        String model = client.createLoraModel(RealTinker.baseModel(), 4, 7L);
        new TinkerLearner(client, model, model(7), SETTINGS, 0).rl(TinkerBatchTest.batch());
        // A second learner of the model at step 0 sends another batch under the ids the first used: the engine refuses it
        // (409, a sequence number reused with another body) — here the refusal a trainer drops a batch for, made on the real engine.
        var second = new TinkerLearner(client, model, model(7), SETTINGS, 0);
        SequenceBatch other = TinkerBatchTest.batch(new double[] {-3, -3}, new double[] {-2, -2, -2});
        var refused = assertThrows(TinkerRejectedException.class, () -> second.rl(other));
        assertEquals(409, refused.status(), refused.getMessage());
        assertEquals(0, second.step(), "no step taken");
        // the trainer goes on with its next batch: new ids, a step (with the ids derived from the step count alone, refused for ever)
        second.rl(other);
        assertEquals(1, second.step());
        // set aside (the trainer going back to its last checkpoint): the model is freed on the engine, and freeing it again is no error
        second.unload();
        assertThrows(TinkerModelLostException.class, () -> logprobs(model, other, 1004));
        second.unload();
    }

    @Test
    void aSupervisedStepsLossIsTheMeanNllOfTheCompletionTokensAndFalls() {
        String model = client.createLoraModel(RealTinker.baseModel(), 4, 6L);
        SequenceBatch b = TinkerBatchTest.batch();
        float[][] before = logprobs(model, b, 1001);
        double nll = -(before[0][1] + before[0][2] + before[1][0] + before[1][1] + before[1][2]) / 5;
        // Adam's first step moves every weight by about the learning rate whatever its gradient: small enough to stay in the
        // region where the loss falls to first order (0.05 overshot: 5.72 -> 5.82)
        var small = new TinkerLearner.Settings(SETTINGS.loss(), LrSchedule.constant(1e-3, 0), 0.9, 0.999, 1e-8, 0, 64, true);
        var learner = new TinkerLearner(client, model, model(5), small, 0);
        Learner.StepStats stats = learner.sft(b, 0);
        assertEquals(nll, stats.loss(), 1e-5, "−Σ logp / 5 completion tokens (the prompt's token 2 not counted)");
        float[][] after = logprobs(model, b, 1002);
        double nllAfter = -(after[0][1] + after[0][2] + after[1][0] + after[1][1] + after[1][2]) / 5;
        assertTrue(nllAfter < nll, nll + " -> " + nllAfter);
    }
}
