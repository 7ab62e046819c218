package ai.openalice.rl.model.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A HuggingFace model folder, checked: {@code config.json} (see {@link HfConfig}), the weights with
 * every tensor the config needs at its shape ({@link HfWeights}), {@code tokenizer.json}, and what
 * {@code generation_config.json} and {@code tokenizer_config.json} add where present: the
 * end-of-sequence ids (generation_config's win over config.json's) and the chat template, kept
 * as text for the agent loop.
 */
public record HfModel(Path dir, HfConfig config, HfWeights weights, Set<Integer> eosTokenIds, Integer bosTokenId, String chatTemplate) {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static HfModel load(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new HfFormatException(dir + ": not a folder (a HuggingFace model folder is expected)");
        }
        HfConfig config = HfConfig.read(dir);
        if (!Files.isRegularFile(dir.resolve("tokenizer.json"))) {
            throw new HfFormatException(dir + ": no tokenizer.json (the model's own tokenizer is needed to read and write its tokens)");
        }
        HfWeights weights = HfWeights.open(dir);
        weights.check(config.tensors(), dir);
        JsonNode cfg = JSON.readTree(dir.resolve("config.json").toFile());
        JsonNode gen = json(dir.resolve("generation_config.json"));
        Set<Integer> eos = ids(gen.has("eos_token_id") ? gen.get("eos_token_id") : cfg.path("eos_token_id"));
        JsonNode bos = gen.has("bos_token_id") ? gen.get("bos_token_id") : cfg.path("bos_token_id");
        JsonNode template = json(dir.resolve("tokenizer_config.json")).path("chat_template");
        return new HfModel(dir, config, weights, eos, bos.isIntegralNumber() ? bos.asInt() : null, chatTemplate(template));
    }

    /** Every tensor the config needs, as float32, in the config's order (all in memory: small models, checks and exports). */
    public Map<String, float[]> floats() throws IOException {
        var out = new LinkedHashMap<String, float[]>();
        for (String name : config.tensors().keySet()) {
            out.put(name, weights.floats(name));
        }
        return out;
    }

    private static JsonNode json(Path file) throws IOException {
        return Files.isRegularFile(file) ? JSON.readTree(file.toFile()) : JSON.createObjectNode();
    }

    /** An id or a list of ids (both forms ship). */
    private static Set<Integer> ids(JsonNode node) {
        var out = new LinkedHashSet<Integer>();
        if (node.isIntegralNumber()) {
            out.add(node.asInt());
        }
        node.forEach(n -> out.add(n.asInt()));
        return out;
    }

    /** The template as a string; some folders ship a list of named templates, of which "default" is the chat one. */
    private static String chatTemplate(JsonNode t) {
        if (t.isTextual()) {
            return t.asText();
        }
        List<String> named = new ArrayList<>();
        for (JsonNode n : t) {
            if ("default".equals(n.path("name").asText())) {
                return n.path("template").asText();
            }
            named.add(n.path("name").asText());
        }
        return null;
    }
}
