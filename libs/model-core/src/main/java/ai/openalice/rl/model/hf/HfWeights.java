package ai.openalice.rl.model.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A model folder's weights as HuggingFace ships them: one {@code model.safetensors}, or shards
 * named by {@code model.safetensors.index.json} ({@code weight_map}: tensor → file). Tensors are
 * read one at a time, as float32.
 */
public final class HfWeights {
    public static final String SINGLE = "model.safetensors";
    public static final String INDEX = "model.safetensors.index.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, SafeTensors> byTensor;

    private HfWeights(Map<String, SafeTensors> byTensor) {
        this.byTensor = byTensor;
    }

    /** The weights in {@code dir}. */
    public static HfWeights open(Path dir) throws IOException {
        Path index = dir.resolve(INDEX);
        var byTensor = new LinkedHashMap<String, SafeTensors>();
        if (Files.isRegularFile(index)) {
            JsonNode map = JSON.readTree(index.toFile()).path("weight_map");
            if (!map.isObject() || map.isEmpty()) {
                throw new HfFormatException(index + ": weight_map: required, an object of tensor name → shard file");
            }
            var shards = new LinkedHashMap<String, SafeTensors>();
            for (var e : map.properties()) {
                String shard = e.getValue().asText();
                if (shard.contains("/") || shard.contains("\\")) {
                    throw new HfFormatException(index + ": weight_map." + e.getKey() + ": '" + shard + "' is not a file name in the folder");
                }
                SafeTensors file = shards.get(shard);
                if (file == null) {
                    Path p = dir.resolve(shard);
                    if (!Files.isRegularFile(p)) {
                        throw new HfFormatException(index + ": weight_map." + e.getKey() + " names " + shard + ", which is not in " + dir);
                    }
                    file = SafeTensors.open(p);
                    shards.put(shard, file);
                }
                if (!file.entries().containsKey(e.getKey())) {
                    throw new HfFormatException(index + ": weight_map puts " + e.getKey() + " in " + shard + ", which does not hold it");
                }
                byTensor.put(e.getKey(), file);
            }
        } else if (Files.isRegularFile(dir.resolve(SINGLE))) {
            SafeTensors file = SafeTensors.open(dir.resolve(SINGLE));
            file.entries().keySet().forEach(name -> byTensor.put(name, file));
        } else {
            throw new HfFormatException(dir + ": no " + SINGLE + " or " + INDEX + " (weights are read from safetensors)");
        }
        return new HfWeights(Collections.unmodifiableMap(byTensor));
    }

    /** Every tensor's name, with the file that holds it. */
    public Map<String, SafeTensors> files() {
        return byTensor;
    }

    public boolean has(String name) {
        return byTensor.containsKey(name);
    }

    public SafeTensors.Entry entry(String name) {
        SafeTensors file = byTensor.get(name);
        if (file == null) {
            throw new HfFormatException("no tensor " + name + " in the weights");
        }
        return file.entries().get(name);
    }

    public float[] floats(String name) throws IOException {
        entry(name);
        return byTensor.get(name).floats(name);
    }

    /**
     * Checks that every tensor {@code expected} names is present with its shape (tensors beyond
     * those are ignored, as HuggingFace ignores e.g. stored rotary tables).
     */
    public void check(Map<String, long[]> expected, Path dir) {
        for (var e : expected.entrySet()) {
            if (!has(e.getKey())) {
                throw new HfFormatException(dir + ": tensor " + e.getKey() + " is missing (expected shape " + Arrays.toString(e.getValue()) + ")");
            }
            var entry = entry(e.getKey());
            if (!Arrays.equals(entry.shape(), e.getValue())) {
                throw new HfFormatException(dir + ": tensor " + e.getKey() + " has shape " + Arrays.toString(entry.shape()) + ", the config needs "
                        + Arrays.toString(e.getValue()));
            }
            if (!entry.dtype().isWeight()) {
                throw new HfFormatException(dir + ": tensor " + e.getKey() + " is " + entry.dtype() + "; weights are read from F32, F16 or BF16");
            }
        }
    }
}
