package ai.openalice.rl.model.hf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Random models in HuggingFace's folder layout, for tests and benchmarks (nothing here is a trained
 * model): config.json, safetensors weights (whole or sharded, in any weight dtype) and a minimal
 * tokenizer.json.
 */
public final class TinyModels {
    public static final ObjectMapper JSON = new ObjectMapper();

    private TinyModels() {}

    /** A config of {@code modelType} with small dimensions; callers adjust fields. */
    public static ObjectNode config(String modelType) {
        ObjectNode c = JSON.createObjectNode();
        c.put("model_type", modelType).put("vocab_size", 11).put("hidden_size", 8).put("intermediate_size", 12).put("num_hidden_layers", 2)
                .put("num_attention_heads", 4).put("num_key_value_heads", 2).put("rms_norm_eps", 1e-6).put("rope_theta", 10000.0)
                .put("max_position_embeddings", 64).put("tie_word_embeddings", false).put("hidden_act", "silu").put("eos_token_id", 2);
        if (modelType.equals("qwen3")) {
            c.put("head_dim", 6);
        }
        return c;
    }

    /** Random weights of every tensor {@code config} needs (norm weights near 1). */
    public static Map<String, float[]> randomWeights(HfConfig config, long seed) {
        var rnd = new Random(seed);
        var out = new LinkedHashMap<String, float[]>();
        config.tensors().forEach((name, shape) -> {
            long n = 1;
            for (long d : shape) {
                n *= d;
            }
            float[] w = new float[(int) n];
            boolean norm = name.endsWith("norm.weight");
            for (int i = 0; i < w.length; i++) {
                w[i] = norm ? 1f + 0.1f * (float) rnd.nextGaussian() : 0.3f * (float) rnd.nextGaussian();
            }
            out.put(name, w);
        });
        return out;
    }

    /**
     * Random weights, except that each token of {@code chain} but the last is followed, at
     * temperature 0, by the next one: its embedding is a large one-hot column of its own (so after
     * the final norm the hidden state is that column, whatever the random layers add) and the next
     * token's {@code lm_head} row reads that column. A model that writes a scripted answer — a tool
     * call, say — in the real HuggingFace layout; every other token behaves as a random model's.
     * Needs tokens distinct but the last, at most {@code hidden_size} + 1 of them, and untied embeddings.
     */
    public static Map<String, float[]> scripted(HfConfig config, long seed, int... chain) {
        int hidden = config.hiddenSize();
        if (chain.length - 1 > hidden || config.tieWordEmbeddings()) {
            throw new IllegalArgumentException("a chain of " + chain.length + " tokens needs hidden_size >= " + (chain.length - 1) + " and untied embeddings");
        }
        var w = randomWeights(config, seed);
        float[] embed = w.get("model.embed_tokens.weight");
        float[] head = w.get("lm_head.weight");
        for (int k = 0; k + 1 < chain.length; k++) {
            Arrays.fill(embed, chain[k] * hidden, (chain[k] + 1) * hidden, 0f);
            embed[chain[k] * hidden + k] = 100f;
            for (int v = 0; v < config.vocabSize(); v++) {
                head[v * hidden + k] = v == chain[k + 1] ? 20f : 0f;
            }
        }
        return w;
    }

    /**
     * A word-level tokenizer.json of {@code vocab} ids: {@code [UNK]} 0, words {@code w1} … {@code w(V−2)}
     * split on whitespace, and the special {@code <|endoftext|>} as the last id.
     */
    public static ObjectNode tokenizer(int vocab) {
        ObjectNode t = JSON.createObjectNode();
        t.put("version", "1.0").putNull("truncation").putNull("padding");
        t.putArray("added_tokens").addObject().put("id", vocab - 1).put("content", "<|endoftext|>").put("single_word", false).put("lstrip", false)
                .put("rstrip", false).put("normalized", false).put("special", true);
        t.putNull("normalizer");
        t.putObject("pre_tokenizer").put("type", "Whitespace");
        t.putNull("post_processor");
        t.putNull("decoder");
        ObjectNode model = t.putObject("model").put("type", "WordLevel").put("unk_token", "[UNK]");
        ObjectNode words = model.putObject("vocab");
        words.put("[UNK]", 0);
        for (int i = 1; i < vocab - 1; i++) {
            words.put("w" + i, i);
        }
        return t;
    }

    /**
     * A byte-level BPE tokenizer.json without merges: GPT-2's byte-to-character alphabet as ids
     * 0–255 (so any text round-trips, one token per byte), then {@code specials} as ids 256… —
     * what a Qwen- or Llama-style tokenizer looks like with its merges and most of its vocabulary
     * left out.
     */
    public static ObjectNode byteLevelTokenizer(List<String> specials) {
        ObjectNode t = JSON.createObjectNode();
        t.put("version", "1.0").putNull("truncation").putNull("padding");
        var added = t.putArray("added_tokens");
        for (int i = 0; i < specials.size(); i++) {
            added.addObject().put("id", 256 + i).put("content", specials.get(i)).put("single_word", false).put("lstrip", false).put("rstrip", false)
                    .put("normalized", false).put("special", true);
        }
        t.putNull("normalizer");
        t.putObject("pre_tokenizer").put("type", "ByteLevel").put("add_prefix_space", false).put("trim_offsets", true).put("use_regex", true);
        t.putNull("post_processor");
        t.putObject("decoder").put("type", "ByteLevel").put("add_prefix_space", true).put("trim_offsets", true).put("use_regex", true);
        ObjectNode model = t.putObject("model").put("type", "BPE").putNull("dropout").putNull("unk_token").putNull("continuing_subword_prefix")
                .putNull("end_of_word_suffix").put("fuse_unk", false).put("byte_fallback", false);
        ObjectNode vocab = model.putObject("vocab");
        int extra = 0;
        for (int b = 0; b < 256; b++) {
            boolean printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            vocab.put(new String(Character.toChars(printable ? b : 256 + extra++)), b);
        }
        model.putArray("merges");
        return t;
    }

    /** Writes a model folder; {@code shards} > 1 splits the tensors over that many files with an index. */
    public static Path write(Path dir, ObjectNode config, Map<String, float[]> weights, DType dtype, int shards) throws IOException {
        Files.createDirectories(dir);
        JSON.writeValue(dir.resolve("config.json").toFile(), config);
        HfConfig c = HfConfig.of(config, "test config");
        JSON.writeValue(dir.resolve("tokenizer.json").toFile(), tokenizer(c.vocabSize()));
        var tensors = new LinkedHashMap<String, SafeTensors.Tensor>();
        weights.forEach((name, w) -> tensors.put(name, SafeTensors.Tensor.of(dtype, c.tensors().getOrDefault(name, new long[] {w.length}), w)));
        if (shards <= 1) {
            SafeTensors.write(dir.resolve(HfWeights.SINGLE), tensors, Map.of("format", "pt"));
            return dir;
        }
        ObjectNode index = JSON.createObjectNode();
        index.putObject("metadata").put("total_size", tensors.values().stream().mapToLong(t -> t.data().length).sum());
        ObjectNode map = index.putObject("weight_map");
        var names = tensors.keySet().toArray(String[]::new);
        for (int s = 0; s < shards; s++) {
            String file = "model-%05d-of-%05d.safetensors".formatted(s + 1, shards);
            var part = new LinkedHashMap<String, SafeTensors.Tensor>();
            for (int i = s; i < names.length; i += shards) {
                part.put(names[i], tensors.get(names[i]));
                map.put(names[i], file);
            }
            SafeTensors.write(dir.resolve(file), part, Map.of("format", "pt"));
        }
        JSON.writeValue(dir.resolve(HfWeights.INDEX).toFile(), index);
        return dir;
    }
}
