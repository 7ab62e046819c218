package ai.openalice.rl.model.learner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.model.djl.HfLm;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.model.train.AdamW;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * LoRA on a Llama-layout model through the trainer's path, on {@link LearnerTest}'s toy task (after
 * token 0 answer 5 6 7; reward the fraction right, chance 1/16): the reward improves while the base
 * weights stay bit-identical and the optimizer holds state for A and B alone. The same statistics
 * as there: the difference of two 5-step means of 32 samples has a standard error of at most
 * 0.057, and the test asks for 0.3 (over five standard errors).
 */
class LoraLearnerTest {
    static final int[] TARGET = LearnerTest.TARGET;

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
            double[] meanReward = LearnerTest.train(learner, c.maxPositions());
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
