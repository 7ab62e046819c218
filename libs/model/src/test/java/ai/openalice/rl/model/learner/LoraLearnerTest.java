package ai.openalice.rl.model.learner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.types.Shape;
import ai.openalice.rl.core.advantage.AdvantageEstimators;
import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.Sampler;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.HfLm;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.model.train.AdamW;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * LoRA on a Llama-layout model through the trainer's path, on {@link LearnerTest}'s toy task (after
 * token 0 answer 5 6 7; reward the fraction right, chance 1/16): the reward improves while the base
 * weights stay bit-identical and the optimizer holds state for A and B alone. The same statistics
 * as there: the difference of two 5-step means of 32 samples has a standard error of at most
 * 0.057, and the test asks for 0.3 (over five standard errors).
 */
class LoraLearnerTest {
    static final int[] TARGET = {5, 6, 7};

    static Sample episode(HfLm lm, Sampler sampler, double[] rewardOut, int i) {
        long[] seq = {0};
        var tokens = new ArrayList<Integer>();
        var logp = new ArrayList<Double>();
        int hits = 0;
        int v = lm.config().vocabSize();
        for (int t = 0; t < 3; t++) {
            try (var sub = lm.manager().newSubManager()) {
                float[] all = lm.logits(sub.create(seq, new Shape(1, seq.length))).toFloatArray();
                var choice = sampler.next(Arrays.copyOfRange(all, (seq.length - 1) * v, seq.length * v));
                tokens.add(choice.token());
                logp.add(choice.logprob());
                hits += choice.token() == TARGET[t] ? 1 : 0;
                seq = Arrays.copyOf(seq, seq.length + 1);
                seq[seq.length - 1] = choice.token();
            }
        }
        rewardOut[i] = hits / 3.0;
        return new Sample(UUID.randomUUID(), List.of(new Turn(0, List.of(0), tokens, logp, 0, new Action("answer", null, null), "", 0, 0)), 0);
    }

    @Test
    void anAdapterLearnsTheRewardedPatternAndLeavesTheBaseAlone() {
        var json = TinyModels.config("llama").put("vocab_size", 16).put("hidden_size", 16).put("intermediate_size", 32).put("num_hidden_layers", 1)
                .put("num_attention_heads", 2).put("num_key_value_heads", 1).put("max_position_embeddings", 8);
        HfConfig c = HfConfig.of(json, "toy");
        var base = TinyModels.randomWeights(c, 4);
        var adapter = LoraAdapter.initialise(new LoraConfig(4, 8, List.of("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
                null, false, null), c, 5);
        var settings = new Learner.Settings(PolicyLossConfig.grpoPlusPlus(TARGET.length), LrSchedule.constant(0.05, 0), 1, 1, 32, 1f);
        try (var learner = new Learner<>(HfLm.withAdapter(c, base, adapter), AdamW.defaults(), settings)) {
            var sampler = new Sampler(1.0, 1.0, 77);
            double[] meanReward = new double[40];
            for (int step = 0; step < meanReward.length; step++) {
                var samples = new ArrayList<Sample>();
                double[] rewards = new double[32];
                for (int i = 0; i < 32; i++) {
                    samples.add(episode(learner.model(), sampler, rewards, i));
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
                learner.rl(SequenceBatch.of(withAdvantages, c.maxPositions(), Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, TARGET.length).batch());
            }
            double first = Arrays.stream(meanReward, 0, 5).average().orElse(0);
            double last = Arrays.stream(meanReward, 35, 40).average().orElse(0);
            System.out.printf("[lora learner] mean reward, first 5 steps %.3f, last 5 steps %.3f (40 steps x 32 samples)%n", first, last);
            assertTrue(last - first > 0.3, "mean reward " + first + " → " + last + ": " + Arrays.toString(meanReward));

            var after = learner.model().baseWeights();
            base.forEach((name, w) -> assertArrayEquals(w, after.get(name), 0f, name + " is frozen"));
            var state = learner.optimizer().export().keySet();
            assertEquals(2 * 2 * 7, state.size(), "m and v for A and B of 7 modules: " + state);
            assertTrue(state.stream().allMatch(k -> k.contains(".lora_A.") || k.contains(".lora_B.")), state.toString());
        }
    }
}
