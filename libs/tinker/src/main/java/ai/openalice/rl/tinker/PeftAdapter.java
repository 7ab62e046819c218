package ai.openalice.rl.tinker;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PEFT adapter an engine's sampler weights arrive as. SkyRL 0.4 writes {@code target_modules:
 * null} into adapter_config.json, and PEFT then falls back to its default for the architecture
 * (Qwen's: q_proj and v_proj alone) and silently drops the other modules' weights — the model
 * PEFT builds is not the one the engine trained. The modules are named here from the weights the
 * file holds (the safetensors header: an 8-byte little-endian length, then JSON keyed by tensor name).
 */
final class PeftAdapter {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LORA_KEY = Pattern.compile("\\.([A-Za-z0-9_]+)\\.lora_[AB](?:\\.[A-Za-z0-9_]+)?\\.weight$");

    private PeftAdapter() {}

    /** Names the target modules in {@code dir}'s adapter_config.json when it names none; returns them. */
    static TreeSet<String> nameTargetModules(Path dir) throws IOException {
        Path config = dir.resolve("adapter_config.json");
        Path weights = dir.resolve("adapter_model.safetensors");
        if (!Files.isRegularFile(config) || !Files.isRegularFile(weights)) {
            throw new IOException(dir + " is not a PEFT adapter (adapter_config.json and adapter_model.safetensors expected)");
        }
        TreeSet<String> modules = new TreeSet<>();
        for (Iterator<String> names = header(weights).fieldNames(); names.hasNext(); ) {
            Matcher m = LORA_KEY.matcher(names.next());
            if (m.find()) {
                modules.add(m.group(1));
            }
        }
        if (modules.isEmpty()) {
            throw new IOException(weights + " holds no LoRA weights (no *.lora_A.weight or *.lora_B.weight)");
        }
        ObjectNode c = (ObjectNode) JSON.readTree(config.toFile());
        if (c.path("target_modules").isNull() || c.path("target_modules").isMissingNode()) {
            ArrayNode a = c.putArray("target_modules");
            modules.forEach(a::add);
            JSON.writerWithDefaultPrettyPrinter().writeValue(config.toFile(), c);
        }
        return modules;
    }

    private static ObjectNode header(Path safetensors) throws IOException {
        try (InputStream in = Files.newInputStream(safetensors); var data = new DataInputStream(in)) {
            byte[] len = new byte[8];
            data.readFully(len);
            long n = ByteBuffer.wrap(len).order(ByteOrder.LITTLE_ENDIAN).getLong();
            if (n <= 0 || n > 100_000_000) {
                throw new IOException(safetensors + " has a header of " + n + " bytes: not a safetensors file");
            }
            byte[] header = new byte[(int) n];
            data.readFully(header);
            return (ObjectNode) JSON.readTree(header);
        }
    }
}
