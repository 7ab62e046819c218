package ai.openalice.rl.model.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A HuggingFace causal LM's architecture, read from its {@code config.json}: the Llama layout
 * (RMSNorm, rotate-half RoPE with {@code rope_theta} and optional Llama-3 scaling, grouped-query
 * attention, SwiGLU MLP) in the variants the families ship — Qwen2's bias on q/k/v, Qwen3's per-head
 * RMSNorm on q and k and explicit {@code head_dim}, Llama's {@code attention_bias}, tied or untied
 * output head. Mistral without a sliding window is the same architecture. Anything else is
 * refused with the field that says so.
 */
public record HfConfig(Family family, String modelType, int vocabSize, int hiddenSize, int intermediateSize, int layers, int heads, int kvHeads,
        int headDim, double rmsNormEps, double ropeTheta, RopeScaling ropeScaling, int maxPositions, boolean tieWordEmbeddings, boolean qkvBias,
        boolean oBias, boolean qkNorm) {

    /** The tensor layouts this project knows; {@code model_type}s that share one map to it. */
    public enum Family { LLAMA, QWEN2, QWEN3 }

    /** Llama 3.1's frequency-dependent RoPE scaling ({@code rope_type: llama3}). */
    public record RopeScaling(double factor, double lowFreqFactor, double highFreqFactor, int originalMaxPositions) {}

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Reads {@code dir/config.json}. */
    public static HfConfig read(Path dir) throws IOException {
        Path file = dir.resolve("config.json");
        if (!Files.isRegularFile(file)) {
            throw new HfFormatException(dir + ": no config.json (a HuggingFace model folder has config.json, the weights and tokenizer.json)");
        }
        return of(JSON.readTree(file.toFile()), file.toString());
    }

    /** The config in {@code json}; {@code where} names it in messages. */
    public static HfConfig of(JsonNode json, String where) {
        String type = json.path("model_type").asText("");
        Family family = switch (type) {
            case "llama", "mistral" -> Family.LLAMA;
            case "qwen2" -> Family.QWEN2;
            case "qwen3" -> Family.QWEN3;
            default -> throw new HfFormatException(where + ": model_type '" + type + "' is not supported (llama, mistral, qwen2, qwen3 are)");
        };
        var f = new Fields(json, where);
        String act = json.path("hidden_act").asText("silu");
        if (!act.equals("silu")) {
            f.refuse("hidden_act", "'" + act + "' (only silu, the SwiGLU MLP, is supported)");
        }
        if (json.path("mlp_bias").asBoolean(false)) {
            f.refuse("mlp_bias", "true (the MLP has no bias in the supported families)");
        }
        if (json.path("use_sliding_window").asBoolean(false)) {
            f.refuse("use_sliding_window", "true (sliding-window attention is not supported)");
        }
        int maxPositions = f.positive("max_position_embeddings", 2048);
        if (json.hasNonNull("sliding_window") && json.path("sliding_window").asLong() < maxPositions && !json.has("use_sliding_window")) {
            f.refuse("sliding_window", json.get("sliding_window") + " (sliding-window attention is not supported; null or >= max_position_embeddings is)");
        }
        int hidden = f.positive("hidden_size", null);
        int heads = f.positive("num_attention_heads", null);
        int kvHeads = f.positive("num_key_value_heads", heads);
        if (heads % kvHeads != 0) {
            f.refuse("num_key_value_heads", kvHeads + " does not divide num_attention_heads " + heads);
        }
        int headDim;
        if (json.hasNonNull("head_dim")) {
            headDim = f.positive("head_dim", null);
        } else if (hidden % heads != 0) {
            throw new HfFormatException(where + ": hidden_size " + hidden + " is not a multiple of num_attention_heads " + heads + " and no head_dim is given");
        } else {
            headDim = hidden / heads;
        }
        if (headDim % 2 != 0) {
            f.refuse("head_dim", headDim + " is odd (rotary embeddings rotate pairs)");
        }
        JsonNode rope = json.has("rope_parameters") ? json.get("rope_parameters") : json.path("rope_scaling");
        double theta = rope.hasNonNull("rope_theta") ? rope.get("rope_theta").asDouble() : json.path("rope_theta").asDouble(10000.0);
        boolean attentionBias = json.path("attention_bias").asBoolean(false);
        return new HfConfig(family, type, f.positive("vocab_size", null), hidden, f.positive("intermediate_size", null),
                f.positive("num_hidden_layers", null), heads, kvHeads, headDim, json.path("rms_norm_eps").asDouble(1e-6), theta,
                scaling(rope, where), maxPositions, json.path("tie_word_embeddings").asBoolean(false), family == Family.QWEN2 || attentionBias,
                family != Family.QWEN2 && attentionBias, family == Family.QWEN3);
    }

    private static RopeScaling scaling(JsonNode rope, String where) {
        if (rope.isMissingNode() || rope.isNull()) {
            return null;
        }
        String type = rope.hasNonNull("rope_type") ? rope.get("rope_type").asText() : rope.path("type").asText("default");
        return switch (type) {
            case "default" -> null;
            case "llama3" -> {
                var f = new Fields(rope, where + ": rope_scaling");
                yield new RopeScaling(f.positiveReal("factor"), f.positiveReal("low_freq_factor"), f.positiveReal("high_freq_factor"),
                        f.positive("original_max_position_embeddings", null));
            }
            default -> throw new HfFormatException(where + ": rope_scaling type '" + type + "' is not supported (none, default and llama3 are)");
        };
    }

    /** Reads required and defaulted fields, naming the field and the file when one is wrong. */
    private record Fields(JsonNode json, String where) {
        int positive(String name, Integer fallback) {
            JsonNode v = json.get(name);
            if (v == null || v.isNull()) {
                if (fallback == null) {
                    throw new HfFormatException(where + ": " + name + " is required");
                }
                return fallback;
            }
            if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < 1) {
                refuse(name, v + " (a positive integer is needed)");
            }
            return v.asInt();
        }

        double positiveReal(String name) {
            JsonNode v = json.get(name);
            if (v == null || !v.isNumber() || v.asDouble() <= 0) {
                refuse(name, (v == null ? "missing" : v.toString()) + " (a positive number is needed)");
            }
            return v.asDouble();
        }

        void refuse(String name, String why) {
            throw new HfFormatException(where + ": " + name + ": " + why);
        }
    }

    /** Refuses, naming {@code field}, a token id outside the vocabulary. */
    public void checkTokens(String field, int[] tokens) {
        for (int i = 0; i < tokens.length; i++) {
            if (tokens[i] < 0 || tokens[i] >= vocabSize) {
                throw new HfFormatException(field + ": id " + tokens[i] + " at " + i + " is outside the vocabulary (0.." + (vocabSize - 1) + ")");
            }
        }
    }

    /** The width of the query projection's output: heads × head_dim (may differ from hidden_size, as in Qwen3). */
    public int qWidth() {
        return heads * headDim;
    }

    /** The width of the key and value projections' outputs. */
    public int kvWidth() {
        return kvHeads * headDim;
    }

    /** How many numbers the model's weights hold (every tensor of {@link #tensors()}). */
    public long parameters() {
        long n = 0;
        for (long[] shape : tensors().values()) {
            long size = 1;
            for (long d : shape) {
                size *= d;
            }
            n += size;
        }
        return n;
    }

    /**
     * Every tensor the model reads, by its HuggingFace name, with its shape as the checkpoint stores
     * it (a linear layer's weight is [out, in]); in a fixed order. A tied model has no
     * {@code lm_head.weight} (the embedding is the output head).
     */
    public Map<String, long[]> tensors() {
        var t = new LinkedHashMap<String, long[]>();
        t.put("model.embed_tokens.weight", new long[] {vocabSize, hiddenSize});
        for (int l = 0; l < layers; l++) {
            String p = "model.layers." + l + ".";
            t.put(p + "input_layernorm.weight", new long[] {hiddenSize});
            t.put(p + "self_attn.q_proj.weight", new long[] {qWidth(), hiddenSize});
            t.put(p + "self_attn.k_proj.weight", new long[] {kvWidth(), hiddenSize});
            t.put(p + "self_attn.v_proj.weight", new long[] {kvWidth(), hiddenSize});
            if (qkvBias) {
                t.put(p + "self_attn.q_proj.bias", new long[] {qWidth()});
                t.put(p + "self_attn.k_proj.bias", new long[] {kvWidth()});
                t.put(p + "self_attn.v_proj.bias", new long[] {kvWidth()});
            }
            if (qkNorm) {
                t.put(p + "self_attn.q_norm.weight", new long[] {headDim});
                t.put(p + "self_attn.k_norm.weight", new long[] {headDim});
            }
            t.put(p + "self_attn.o_proj.weight", new long[] {hiddenSize, qWidth()});
            if (oBias) {
                t.put(p + "self_attn.o_proj.bias", new long[] {hiddenSize});
            }
            t.put(p + "post_attention_layernorm.weight", new long[] {hiddenSize});
            t.put(p + "mlp.gate_proj.weight", new long[] {intermediateSize, hiddenSize});
            t.put(p + "mlp.up_proj.weight", new long[] {intermediateSize, hiddenSize});
            t.put(p + "mlp.down_proj.weight", new long[] {hiddenSize, intermediateSize});
        }
        t.put("model.norm.weight", new long[] {hiddenSize});
        if (!tieWordEmbeddings) {
            t.put("lm_head.weight", new long[] {vocabSize, hiddenSize});
        }
        return t;
    }
}
