package ai.openalice.rl.model.hf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Model folders as they ship: whole, sharded and bf16 weights, generation and tokenizer configs; refusals naming the tensor. */
class HfModelTest {
    @TempDir
    Path dir;

    @Test
    void shardedAndHalfPrecisionFoldersReadAsTheSameModel() throws IOException {
        for (String type : new String[] {"llama", "qwen2", "qwen3"}) {
            var json = TinyModels.config(type);
            var config = HfConfig.of(json, type);
            var weights = TinyModels.randomWeights(config, 11);
            var whole = HfModel.load(TinyModels.write(dir.resolve(type + "-whole"), json, weights, DType.F32, 1));
            var sharded = HfModel.load(TinyModels.write(dir.resolve(type + "-sharded"), json, weights, DType.F32, 3));
            int[] tokens = {1, 5, 3, 9, 0, 2};
            double[] expected = ReferenceLm.of(whole).logProbs(tokens);
            assertArrayEquals(expected, ReferenceLm.of(sharded).logProbs(tokens), 0, type + ": shards hold the same tensors");
            // bf16 keeps 8 bits of mantissa: the same model within that precision
            var bf16 = HfModel.load(TinyModels.write(dir.resolve(type + "-bf16"), json, weights, DType.BF16, 1));
            double[] half = ReferenceLm.of(bf16).logProbs(tokens);
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i], half[i], 0.05, type + " bf16 at " + i);
            }
            float[] w = bf16.weights().floats("model.layers.0.mlp.up_proj.weight");
            assertEquals(DType.bf16ToFloat(DType.floatToBf16(weights.get("model.layers.0.mlp.up_proj.weight")[3])), w[3], 0, "widened exactly");
        }
    }

    @Test
    void readsEndOfSequenceIdsAndTheChatTemplate() throws IOException {
        var json = TinyModels.config("qwen2");
        Path m = TinyModels.write(dir.resolve("m"), json, TinyModels.randomWeights(HfConfig.of(json, "t"), 1), DType.F32, 1);
        assertEquals(Set.of(2), HfModel.load(m).eosTokenIds(), "config.json's eos_token_id");
        Files.writeString(m.resolve("generation_config.json"), "{\"bos_token_id\": 1, \"eos_token_id\": [2, 7]}");
        Files.writeString(m.resolve("tokenizer_config.json"), "{\"chat_template\": \"{% for m in messages %}{{ m.content }}{% endfor %}\"}");
        var model = HfModel.load(m);
        assertEquals(Set.of(2, 7), model.eosTokenIds(), "generation_config.json's list wins");
        assertEquals(1, model.bosTokenId());
        assertEquals("{% for m in messages %}{{ m.content }}{% endfor %}", model.chatTemplate());
    }

    @Test
    void refusesAMissingOrMisshapenTensorNamingIt() throws IOException {
        var json = TinyModels.config("llama");
        var config = HfConfig.of(json, "t");
        var missing = new LinkedHashMap<>(TinyModels.randomWeights(config, 1));
        missing.remove("model.layers.1.mlp.down_proj.weight");
        Path a = TinyModels.write(dir.resolve("a"), json, missing, DType.F32, 1);
        var e = assertThrows(HfFormatException.class, () -> HfModel.load(a));
        assertTrue(e.getMessage().contains("tensor model.layers.1.mlp.down_proj.weight is missing (expected shape [8, 12])"), e.getMessage());

        // weights of a model with 4 KV heads under a config that says 2
        var wider = TinyModels.config("llama").put("num_key_value_heads", 4);
        var weights = TinyModels.randomWeights(HfConfig.of(wider, "t"), 1);
        Path b = TinyModels.write(dir.resolve("b"), wider, weights, DType.F32, 1);
        TinyModels.JSON.writeValue(b.resolve("config.json").toFile(), json);
        e = assertThrows(HfFormatException.class, () -> HfModel.load(b));
        assertTrue(e.getMessage().contains("tensor model.layers.0.self_attn.k_proj.weight has shape [8, 8], the config needs [4, 8]"), e.getMessage());

        Files.delete(b.resolve("tokenizer.json"));
        e = assertThrows(HfFormatException.class, () -> HfModel.load(b));
        assertTrue(e.getMessage().contains("no tokenizer.json"), e.getMessage());
        e = assertThrows(HfFormatException.class, () -> HfModel.load(dir.resolve("nowhere")));
        assertTrue(e.getMessage().contains("not a folder"), e.getMessage());
    }

    @Test
    void refusesAnIndexThatNamesAShardNotThere() throws IOException {
        var json = TinyModels.config("qwen3");
        Path m = TinyModels.write(dir.resolve("m"), json, TinyModels.randomWeights(HfConfig.of(json, "t"), 1), DType.F32, 2);
        Files.delete(m.resolve("model-00002-of-00002.safetensors"));
        var e = assertThrows(HfFormatException.class, () -> HfModel.load(m));
        assertTrue(e.getMessage().contains("model-00002-of-00002.safetensors, which is not in"), e.getMessage());
    }
}
