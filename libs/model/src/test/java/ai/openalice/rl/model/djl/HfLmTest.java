package ai.openalice.rl.model.djl;

import ai.djl.ndarray.types.Shape;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.model.hf.ReferenceLm;
import ai.openalice.rl.model.hf.TinyModels;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** The DJL forward pass of each family held to the plain reference ({@link ReferenceLm}), and LoRA applied against LoRA merged. */
class HfLmTest {
    static final int[] TOKENS = {1, 5, 3, 9, 0, 2, 7, 7, 4};

    @TempDir
    Path dir;

    static double[] djl(HfLm lm, int[] tokens) {
        long[] in = new long[tokens.length - 1];
        long[] target = new long[tokens.length - 1];
        for (int i = 0; i < in.length; i++) {
            in[i] = tokens[i];
            target[i] = tokens[i + 1];
        }
        try (var sub = lm.manager().newSubManager()) {
            float[] lp = lm.tokenLogprobs(sub.create(in, new Shape(1, in.length)), sub.create(target, new Shape(1, in.length)), 1f).toFloatArray();
            double[] out = new double[lp.length];
            for (int i = 0; i < lp.length; i++) {
                out[i] = lp[i];
            }
            return out;
        }
    }

    static List<ObjectNode> variants() {
        var scaled = TinyModels.config("llama");
        scaled.putObject("rope_scaling").put("rope_type", "llama3").put("factor", 8.0).put("low_freq_factor", 1.0).put("high_freq_factor", 4.0)
                .put("original_max_position_embeddings", 16);
        return List.of(TinyModels.config("llama"), scaled, TinyModels.config("llama").put("attention_bias", true).put("tie_word_embeddings", true),
                TinyModels.config("qwen2"), TinyModels.config("qwen3"), TinyModels.config("qwen3").put("num_key_value_heads", 1));
    }

    @Test
    void everyFamilyAgreesWithTheReference() {
        for (ObjectNode json : variants()) {
            HfConfig c = HfConfig.of(json, json.toString());
            var weights = TinyModels.randomWeights(c, 3);
            try (HfLm lm = HfLm.full(c, weights)) {
                assertArrayEquals(new ReferenceLm(c, weights).logProbs(TOKENS), djl(lm, TOKENS), 1e-4, json.toString());
            }
        }
    }

    @Test
    void aBfloat16ShardedFolderRunsAsItsWidenedWeights() throws Exception {
        var json = TinyModels.config("qwen2");
        HfConfig c = HfConfig.of(json, "qwen2");
        var model = HfModel.load(TinyModels.write(dir.resolve("bf16"), json, TinyModels.randomWeights(c, 5), DType.BF16, 2));
        try (HfLm lm = HfLm.full(c, model.floats())) {
            assertArrayEquals(ReferenceLm.of(model).logProbs(TOKENS), djl(lm, TOKENS), 1e-4);
        }
    }

    @Test
    void anAppliedAdapterEqualsItsMergedWeights() throws Exception {
        for (String type : new String[] {"llama", "qwen3"}) {
            var json = TinyModels.config(type);
            HfConfig c = HfConfig.of(json, type);
            var base = TinyModels.randomWeights(c, 8);
            var init = LoraAdapter.initialise(new LoraConfig(4, 8, List.of("q_proj", "v_proj", "down_proj"), null, false, null), c, 1);
            var rnd = new Random(2);
            init.b().values().forEach(b -> {
                for (int i = 0; i < b.length; i++) {
                    b[i] = (float) (0.2 * rnd.nextGaussian()); // a trained adapter, not the zero B of a fresh one
                }
            });
            init.save(dir.resolve(type + "-adapter"), DType.F32);
            var adapter = LoraAdapter.load(dir.resolve(type + "-adapter"), c);
            Map<String, float[]> merged = adapter.merge(base);
            try (HfLm applied = HfLm.withAdapter(c, base, adapter); HfLm full = HfLm.full(c, merged)) {
                double[] a = djl(applied, TOKENS);
                assertArrayEquals(djl(full, TOKENS), a, 1e-4, type);
                assertArrayEquals(new ReferenceLm(c, merged).logProbs(TOKENS), a, 1e-4, type);
                assertFalse(Arrays.equals(new ReferenceLm(c, base).logProbs(TOKENS), a), "the adapter changes the model");
                assertEquals(2 * 3 * c.layers(), applied.parameters().size(), "only A and B of 3 modules per layer train");
            }
        }
    }
}
