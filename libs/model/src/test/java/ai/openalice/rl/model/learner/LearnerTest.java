package ai.openalice.rl.model.learner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.types.Shape;
import ai.openalice.rl.core.advantage.AdvantageEstimators;
import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.Sampler;
import ai.openalice.rl.model.djl.CausalLm;
import ai.openalice.rl.model.djl.Gpt;
import ai.openalice.rl.model.train.AdamW;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The trainer's learner on the path the service uses — trajectories → {@link SequenceBatch} →
 * {@link Learner#rl} — from scratch on a toy task: after the prompt token 0 a tiny GPT must
 * answer 5 6 7; reward = the fraction of the three positions right (random play: 1/16 on average).
 *
 * <p>Statistics: rewards lie in [0, 1], so one sample's standard deviation is at most 0.5; the
 * mean of 160 samples (5 steps × 32) has a standard error of at most 0.04, the difference of two
 * such means at most 0.057. The test asks the last five steps to beat the first five by 0.4 —
 * seven standard errors — which random variation cannot explain.
 */
class LearnerTest {
    static final GptConfig C = new GptConfig(16, 8, 1, 2, 16);
    static final int[] TARGET = {5, 6, 7};

    static Learner<Gpt> learner(long seed, int microBatch, int miniBatches) {
        var s = new Learner.Settings(PolicyLossConfig.grpoPlusPlus(TARGET.length), LrSchedule.constant(0.03, 0), 1, miniBatches, microBatch, 1f);
        return new Learner<>(Gpt.initialise(C, seed), AdamW.defaults(), s);
    }

    /** One play of the toy task by {@code gpt} (whose vocabulary is 16, as C's). */
    static Sample episode(CausalLm gpt, Sampler sampler, double advantage, double[] rewardOut, int i) {
        long[] seq = {0};
        var tokens = new ArrayList<Integer>();
        var logp = new ArrayList<Double>();
        int hits = 0;
        for (int t = 0; t < 3; t++) {
            try (var sub = gpt.manager().newSubManager()) {
                float[] all = gpt.logits(sub.create(seq, new Shape(1, seq.length))).toFloatArray();
                var choice = sampler.next(Arrays.copyOfRange(all, (seq.length - 1) * C.vocabSize(), seq.length * C.vocabSize()));
                tokens.add(choice.token());
                logp.add(choice.logprob());
                hits += choice.token() == TARGET[t] ? 1 : 0;
                seq = Arrays.copyOf(seq, seq.length + 1);
                seq[seq.length - 1] = choice.token();
            }
        }
        rewardOut[i] = hits / 3.0;
        return new Sample(UUID.randomUUID(), List.of(new Turn(0, List.of(0), tokens, logp, 0, new Action("answer", null, null), "", 0, 0)), advantage);
    }

    /** 40 steps of 32 plays in 4 groups of 8 with leave-one-out advantages, through SequenceBatch and Learner.rl; the mean reward of each step. */
    static double[] train(Learner<? extends CausalLm> learner, int context) {
        var sampler = new Sampler(1.0, 1.0, 77);
        double[] meanReward = new double[40];
        for (int step = 0; step < meanReward.length; step++) {
            var samples = new ArrayList<Sample>();
            double[] rewards = new double[32];
            for (int i = 0; i < 32; i++) {
                samples.add(episode(learner.model(), sampler, 0, rewards, i));
            }
            meanReward[step] = Arrays.stream(rewards).average().orElse(0);
            var withAdvantages = new ArrayList<Sample>();
            for (int g = 0; g < 4; g++) {
                double[] a = AdvantageEstimators.get("loo").estimate(Arrays.copyOfRange(rewards, g * 8, g * 8 + 8)).advantages();
                for (int j = 0; j < 8; j++) {
                    Sample s = samples.get(g * 8 + j);
                    withAdvantages.add(new Sample(s.rolloutId(), s.turns(), a[j]));
                }
            }
            learner.rl(SequenceBatch.of(withAdvantages, context, Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, TARGET.length).batch());
        }
        return meanReward;
    }

    @Test
    void theRewardedPatternIsLearnedThroughTheServicePath() {
        try (Learner<Gpt> learner = learner(21, 32, 1)) {
            double[] meanReward = train(learner, C.contextLength());
            double first = Arrays.stream(meanReward, 0, 5).average().orElse(0);
            double last = Arrays.stream(meanReward, 35, 40).average().orElse(0);
            System.out.printf("[learner] mean reward, first 5 steps %.3f, last 5 steps %.3f (40 steps x 32 samples)%n", first, last);
            assertTrue(first < 0.25, "starts near chance (1/16): " + first);
            assertTrue(last - first > 0.4, "mean reward " + first + " → " + last + ": " + Arrays.toString(meanReward));
        }
    }

    @Test
    void microBatchAccumulationGivesTheFullBatchGradient() {
        var sampler = new Sampler(1.0, 1.0, 5);
        var samples = new ArrayList<Sample>();
        try (Learner<Gpt> ref = learner(3, 8, 1); Learner<Gpt> acc = learner(3, 1, 1)) {
            double[] r = new double[8];
            for (int i = 0; i < 8; i++) {
                samples.add(episode(ref.model(), sampler, (i % 3) - 1.0, r, i));
            }
            var batch = SequenceBatch.of(samples, C.contextLength(), Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, TARGET.length).batch();
            var a = ref.rl(batch);
            var b = acc.rl(batch);
            assertEquals(a.gradNorm(), b.gradNorm(), 1e-5 * Math.max(1, a.gradNorm()), "same gradient norm, one pass or eight micro-batches");
            assertEquals(a.loss(), b.loss(), 1e-6);
            Map<String, float[]> pa = ref.parameters();
            Map<String, float[]> pb = acc.parameters();
            for (var e : pa.entrySet()) {
                float[] x = e.getValue();
                float[] y = pb.get(e.getKey());
                for (int i = 0; i < x.length; i++) {
                    // the key bias has no gradient in exact arithmetic (softmax ignores a shift shared by all keys): Adam
                    // turns its float noise into steps of either sign, so it is left out
                    boolean keyBias = e.getKey().endsWith("attn.qkv.bias") && i >= C.width() && i < 2 * C.width();
                    if (!keyBias) {
                        assertEquals(x[i], y[i], 1e-5, e.getKey() + "[" + i + "]");
                    }
                }
            }
        }
    }

    @Test
    void aContextWeightAlsoTeachesThePromptAndReportsTheCompletionLossAlone() {
        // prompt [0 9 9 9 9] (context targets 9 9 9 9), completion [5]
        var demo = new ArrayList<Sample>();
        for (int i = 0; i < 8; i++) {
            demo.add(new Sample(UUID.randomUUID(), List.of(new Turn(0, List.of(0, 9, 9, 9, 9), List.of(5), List.of(0.0), 0,
                    new Action("answer", null, null), "", 0, 0)), 0));
        }
        var batch = SequenceBatch.of(demo, C.contextLength(), Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, 1).batch();
        assertEquals(32, batch.contextTokens());
        double[] contextNll = new double[2];
        for (int run = 0; run < 2; run++) {
            try (Learner<Gpt> learner = learner(9, 16, 1)) {
                double w = run == 0 ? 0 : 1;
                double firstReported = learner.sft(batch, w).loss();
                try (Learner<Gpt> same = learner(9, 16, 1)) { // the same initial weights, completions only
                    assertEquals(same.sft(batch).loss(), firstReported, 1e-5, "the reported loss is the completion NLL, whatever the weight");
                }
                for (int i = 0; i < 20; i++) {
                    learner.sft(batch, w);
                }
                float[] logp = learner.logprobs(batch);
                double nll = 0;
                for (int i = 0; i < logp.length; i++) {
                    nll -= logp[i] * batch.contextMask()[i];
                }
                contextNll[run] = nll / batch.contextTokens();
            }
        }
        // 16 tokens: a guess costs ln 16 = 2.77 nats; only the weighted run learns that 9 follows 9
        assertTrue(contextNll[1] < 0.5, "with weight 1: " + contextNll[1]);
        assertTrue(contextNll[0] > 1.0, "with weight 0 the prompt is not learnt: " + contextNll[0]);
    }

    @Test
    void supervisedStepsRaiseTheLikelihoodOfTheDemonstrations() {
        try (Learner<Gpt> learner = learner(9, 16, 1)) {
            var demo = new ArrayList<Sample>();
            for (int i = 0; i < 16; i++) {
                demo.add(new Sample(UUID.randomUUID(), List.of(new Turn(0, List.of(0), List.of(5, 6, 7), List.of(0.0, 0.0, 0.0), 0,
                        new Action("answer", null, null), "", 0, 0)), 0));
            }
            var batch = SequenceBatch.of(demo, C.contextLength(), Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, 3).batch();
            double before = learner.sft(batch).loss();
            double after = before;
            for (int i = 0; i < 30; i++) {
                after = learner.sft(batch).loss();
            }
            // a uniform guess over 16 tokens costs ln 16 = 2.77 nats per token
            assertTrue(before > 2.0, "starts near ln 16: " + before);
            assertTrue(after < 0.5, "NLL per token " + before + " → " + after);
        }
    }
}
