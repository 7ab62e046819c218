package ai.openalice.rl.trainer.tinker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.core.loss.PolicyLoss;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.core.loss.TokenBatch;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.testkit.RealTinker;
import ai.openalice.rl.tinker.Datum;
import ai.openalice.rl.tinker.ForwardBackwardResult;
import ai.openalice.rl.tinker.LossFn;
import ai.openalice.rl.tinker.TinkerClient;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The loss the real engine (SkyRL's Tinker server, JAX on CPU, the tiny Qwen3) reports for
 * {@link TinkerBatchTest}'s batch equals rl-core's {@link PolicyLoss} for the same batch and the
 * same log-probabilities — with the sampler's log-probabilities as π_old, and with the learner's own
 * (a forward first) and the TIS weight. forward_backward accumulates gradients nobody applies
 * here: no optimizer step is taken.
 */
class TinkerLossParityTest {
    private static final PolicyLossConfig GRPO_PP = PolicyLossConfig.grpoPlusPlus(8);
    private static TinkerClient client;
    private static String model;

    @BeforeAll
    static void connect() {
        client = new TinkerClient(RealTinker.qwen3Tiny(), null, TinkerClient.Listener.NONE);
        client.createSession(List.of("alice-rl-parity"));
        model = client.createLoraModel(RealTinker.baseModel(), 4, 3L);
    }

    @AfterAll
    static void close() {
        client.close();
    }

    @Test
    void withTheSamplersLogprobsAsOld() {
        SequenceBatch b = TinkerBatchTest.batch();
        ForwardBackwardResult r = client.forwardBackward(model, 1, TinkerBatch.rows(b), LossFn.PPO, TinkerBatch.clip(GRPO_PP));
        double rlCore = PolicyLoss.compute(tokens(b, r, null), GRPO_PP).loss();
        assertEquals(rlCore, r.loss(), 1e-6, "rl-core's loss against the engine's");
        assertTrue(Math.abs(rlCore) > 1e-3, "a loss that could differ: " + rlCore);
    }

    @Test
    void withTheLearnersOwnLogprobsAsOldAndTisWeights() {
        SequenceBatch b = TinkerBatchTest.batch();
        float[] old = new float[b.rows() * b.width()];
        ForwardBackwardResult f = client.forward(model, 10, TinkerBatch.rows(b), LossFn.CROSS_ENTROPY, Map.of());
        for (int r = 0; r < b.rows(); r++) {
            float[] lp = f.logprobs(r);
            System.arraycopy(lp, 0, old, r * b.width(), lp.length);
        }
        ForwardBackwardResult r = client.forwardBackward(model, 11, TinkerBatch.rows(b, old, 2.0), LossFn.PPO, TinkerBatch.clip(GRPO_PP));
        double rlCore = PolicyLoss.compute(tokens(b, r, old), GRPO_PP).loss();
        assertEquals(rlCore, r.loss(), 1e-6, "rl-core's loss with TIS against the engine's");
    }

    /** rl-core's batch of the completion tokens: the engine's log-probabilities as logp, π_old as given (or the sampler's), advantages unfolded. */
    private static TokenBatch tokens(SequenceBatch b, ForwardBackwardResult r, float[] old) {
        var offsets = new ArrayList<Integer>(List.of(0));
        var logp = new ArrayList<Double>();
        var oldLogp = new ArrayList<Double>();
        var rollout = new ArrayList<Double>();
        var adv = new ArrayList<Double>();
        for (int row = 0; row < b.rows(); row++) {
            float[] lp = r.logprobs(row);
            for (int i = 0; i < lp.length; i++) {
                int at = row * b.width() + i;
                if (b.mask()[at] != 0) {
                    logp.add((double) lp[i]);
                    rollout.add((double) b.rolloutLogp()[at]);
                    oldLogp.add(old == null ? b.rolloutLogp()[at] : (double) old[at]);
                    adv.add((double) b.advantages()[at]);
                }
            }
            offsets.add(logp.size());
        }
        boolean[] mask = new boolean[logp.size()];
        Arrays.fill(mask, true);
        return new TokenBatch(offsets.stream().mapToInt(Integer::intValue).toArray(), d(logp), d(oldLogp), old == null ? null : d(rollout), null,
                null, d(adv), mask);
    }

    private static double[] d(List<Double> v) {
        return v.stream().mapToDouble(Double::doubleValue).toArray();
    }
}
