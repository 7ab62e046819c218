package ai.openalice.rl.model.hf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** config.json as the families ship it: what each field means, and every refusal naming its field. */
class HfConfigTest {
    static HfConfig of(ObjectNode json) {
        return HfConfig.of(json, "config.json");
    }

    static String refusal(ObjectNode json) {
        return assertThrows(HfFormatException.class, () -> of(json)).getMessage();
    }

    @Test
    void readsEachFamilysVariant() {
        var llama = of(TinyModels.config("llama"));
        assertEquals(HfConfig.Family.LLAMA, llama.family());
        assertEquals(2, llama.headDim()); // hidden 8 / 4 heads
        assertFalse(llama.qkvBias() || llama.oBias() || llama.qkNorm());

        var qwen2 = of(TinyModels.config("qwen2"));
        assertTrue(qwen2.qkvBias(), "Qwen2 has a bias on q, k and v");
        assertFalse(qwen2.oBias(), "and none on o");
        assertArrayEquals(new long[] {8}, qwen2.tensors().get("model.layers.0.self_attn.q_proj.bias"));
        assertFalse(qwen2.tensors().containsKey("model.layers.0.self_attn.o_proj.bias"));

        var qwen3 = of(TinyModels.config("qwen3"));
        assertEquals(6, qwen3.headDim(), "head_dim given, not hidden / heads");
        assertTrue(qwen3.qkNorm());
        assertArrayEquals(new long[] {24, 8}, qwen3.tensors().get("model.layers.1.self_attn.q_proj.weight")); // 4 heads × 6, hidden 8
        assertArrayEquals(new long[] {12, 8}, qwen3.tensors().get("model.layers.1.self_attn.k_proj.weight")); // 2 KV heads × 6
        assertArrayEquals(new long[] {8, 24}, qwen3.tensors().get("model.layers.1.self_attn.o_proj.weight"));
        assertArrayEquals(new long[] {6}, qwen3.tensors().get("model.layers.1.self_attn.q_norm.weight"));

        var mistral = of(TinyModels.config("mistral").putNull("sliding_window"));
        assertEquals(HfConfig.Family.LLAMA, mistral.family(), "mistral without a sliding window is the Llama layout");

        var biased = of(TinyModels.config("llama").put("attention_bias", true));
        assertTrue(biased.qkvBias() && biased.oBias(), "Llama's attention_bias covers q, k, v and o");
    }

    @Test
    void tiedModelsHaveNoOutputHead() {
        assertFalse(of(TinyModels.config("qwen2").put("tie_word_embeddings", true)).tensors().containsKey("lm_head.weight"));
        assertTrue(of(TinyModels.config("qwen2")).tensors().containsKey("lm_head.weight"));
    }

    @Test
    void readsLlama3RopeScalingInBothSpellings() {
        var json = TinyModels.config("llama");
        json.putObject("rope_scaling").put("rope_type", "llama3").put("factor", 8.0).put("low_freq_factor", 1.0).put("high_freq_factor", 4.0)
                .put("original_max_position_embeddings", 8192);
        assertEquals(new HfConfig.RopeScaling(8, 1, 4, 8192), of(json).ropeScaling());
        // transformers 5 moves theta and scaling into rope_parameters
        var v5 = TinyModels.config("llama");
        v5.remove("rope_theta");
        v5.putObject("rope_parameters").put("rope_type", "default").put("rope_theta", 500000.0);
        assertEquals(500000.0, of(v5).ropeTheta());
        assertNull(of(v5).ropeScaling());
    }

    @Test
    void refusesWhatItCannotRunNamingTheField() {
        assertTrue(refusal(TinyModels.config("gpt2")).contains("model_type 'gpt2' is not supported"));
        var yarn = TinyModels.config("qwen2");
        yarn.putObject("rope_scaling").put("type", "yarn").put("factor", 4.0);
        assertTrue(refusal(yarn).contains("rope_scaling type 'yarn' is not supported"));
        assertTrue(refusal(TinyModels.config("mistral").put("sliding_window", 16)).contains("sliding_window: 16"));
        assertTrue(refusal(TinyModels.config("qwen2").put("use_sliding_window", true)).contains("use_sliding_window"));
        assertTrue(refusal(TinyModels.config("llama").put("num_key_value_heads", 3)).contains("num_key_value_heads: 3 does not divide"));
        assertTrue(refusal(TinyModels.config("llama").put("hidden_act", "gelu")).contains("hidden_act: 'gelu'"));
        assertTrue(refusal(TinyModels.config("llama").put("vocab_size", -1)).contains("vocab_size: -1"));
        var noHidden = TinyModels.config("llama");
        noHidden.remove("hidden_size");
        assertTrue(refusal(noHidden).contains("hidden_size is required"));
        var badScaling = TinyModels.config("llama");
        badScaling.putObject("rope_scaling").put("rope_type", "llama3").put("factor", 8.0);
        assertTrue(refusal(badScaling).contains("low_freq_factor: missing"));
    }
}
