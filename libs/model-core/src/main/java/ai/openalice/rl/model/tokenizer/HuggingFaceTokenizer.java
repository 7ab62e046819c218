package ai.openalice.rl.model.tokenizer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * A real model's tokenizer from its {@code tokenizer.json} (HuggingFace format), through DJL's
 * native tokenizers. Special tokens are the file's {@code added_tokens} marked special.
 */
public final class HuggingFaceTokenizer implements Tokenizer, AutoCloseable {
    private final ai.djl.huggingface.tokenizers.HuggingFaceTokenizer delegate;
    private final String name;
    private final int vocabSize;
    private final Map<String, Integer> specials;
    private final int[] endTokens;

    private HuggingFaceTokenizer(ai.djl.huggingface.tokenizers.HuggingFaceTokenizer delegate, String name, int vocabSize,
            Map<String, Integer> specials, int[] endTokens) {
        this.delegate = delegate;
        this.name = name;
        this.vocabSize = vocabSize;
        this.specials = specials;
        this.endTokens = endTokens;
    }

    /**
     * The tokenizer of a model folder, ending completions at the model's end-of-sequence ids
     * ({@code generation_config.json}'s {@code eos_token_id} over {@code config.json}'s, an id or a
     * list), or at {@code tokenizer_config.json}'s {@code eos_token} when neither names one.
     */
    public static HuggingFaceTokenizer forModel(Path dir) throws IOException {
        HuggingFaceTokenizer t = load(dir.resolve("tokenizer.json"));
        var ends = new LinkedHashSet<Integer>();
        for (String file : List.of("generation_config.json", "config.json")) {
            Path f = dir.resolve(file);
            JsonNode id = Files.isRegularFile(f) ? new ObjectMapper().readTree(f.toFile()).path("eos_token_id") : null;
            if (id != null && ends.isEmpty()) {
                if (id.isIntegralNumber()) {
                    ends.add(id.asInt());
                }
                id.forEach(n -> ends.add(n.asInt()));
            }
        }
        Path cfg = dir.resolve("tokenizer_config.json");
        if (ends.isEmpty() && Files.isRegularFile(cfg)) {
            JsonNode eos = new ObjectMapper().readTree(cfg.toFile()).path("eos_token");
            t.special(eos.isTextual() ? eos.asText() : eos.path("content").asText()).ifPresent(ends::add);
        }
        return new HuggingFaceTokenizer(t.delegate, t.name, t.vocabSize, t.specials, ends.stream().mapToInt(Integer::intValue).toArray());
    }

    /** Loads {@code tokenizer.json}; offline (the native library ships in the DJL jar). */
    public static HuggingFaceTokenizer load(Path tokenizerJson) throws IOException {
        JsonNode root = new ObjectMapper().readTree(tokenizerJson.toFile());
        var specials = new TreeMap<String, Integer>();
        int maxId = -1;
        for (JsonNode t : root.path("added_tokens")) {
            maxId = Math.max(maxId, t.path("id").asInt());
            if (t.path("special").asBoolean(false)) {
                specials.put(t.path("content").asText(), t.path("id").asInt());
            }
        }
        for (JsonNode id : root.path("model").path("vocab")) {
            maxId = Math.max(maxId, id.isInt() ? id.asInt() : id.path(1).asInt(-1));
        }
        // DJL truncates to 512 tokens unless told not to: a long prompt would lose its end without a word
        var delegate = ai.djl.huggingface.tokenizers.HuggingFaceTokenizer.newInstance(tokenizerJson,
                Map.of("addSpecialTokens", "false", "truncation", "false", "padding", "false"));
        return new HuggingFaceTokenizer(delegate, "hf:" + tokenizerJson.getFileName(), maxId + 1, Map.copyOf(specials), new int[0]);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int vocabSize() {
        return vocabSize;
    }

    @Override
    public int[] encode(String text) {
        long[] ids = delegate.encode(text, false, false).getIds();
        int[] out = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            out[i] = (int) ids[i];
        }
        return out;
    }

    @Override
    public String decode(int[] ids) {
        long[] l = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            l[i] = ids[i];
        }
        return delegate.decode(l, false);
    }

    @Override
    public int[] endTokens() {
        return endTokens.clone();
    }

    @Override
    public OptionalInt special(String token) {
        Integer id = specials.get(token);
        return id == null ? OptionalInt.empty() : OptionalInt.of(id);
    }

    @Override
    public List<String> specials() {
        var names = new ArrayList<>(specials.keySet());
        names.sort(Comparator.comparing(specials::get));
        return names;
    }

    @Override
    public void close() {
        delegate.close();
    }
}
