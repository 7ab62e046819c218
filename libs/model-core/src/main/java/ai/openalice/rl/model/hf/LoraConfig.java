package ai.openalice.rl.model.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A LoRA adapter's {@code adapter_config.json} as PEFT writes it: rank {@code r}, {@code lora_alpha},
 * {@code target_modules} (a list of module names, matched against the last part of a module's path
 * or its whole path; or one regular expression, matched against the whole path), and
 * {@code use_rslora} (scale α/√r instead of α/r). PEFT features that change the arithmetic and are
 * not implemented here — DoRA, biases, per-layer rank or alpha patterns, extra saved modules — are
 * refused naming the field.
 */
public record LoraConfig(int r, double alpha, List<String> targetModules, String targetRegex, boolean rslora, String baseModel) {
    public static final String FILE = "adapter_config.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    public LoraConfig {
        if (r < 1 || !(alpha > 0)) {
            throw new HfFormatException("LoRA rank must be >= 1 and lora_alpha > 0, got r=" + r + ", lora_alpha=" + alpha);
        }
        if ((targetModules == null || targetModules.isEmpty()) && targetRegex == null) {
            throw new HfFormatException("target_modules: name the modules to adapt (e.g. [\"q_proj\", \"v_proj\"])");
        }
        targetModules = targetModules == null ? List.of() : List.copyOf(targetModules);
    }

    /** The factor B·A is multiplied by: α/r, or α/√r with rsLoRA. */
    public double scale() {
        return rslora ? alpha / Math.sqrt(r) : alpha / r;
    }

    /** Whether the linear layer at {@code modulePath} (e.g. {@code model.layers.0.self_attn.q_proj}) is adapted. */
    public boolean targets(String modulePath) {
        if (targetRegex != null) {
            return Pattern.compile(targetRegex).matcher(modulePath).matches();
        }
        return targetModules.stream().anyMatch(t -> modulePath.equals(t) || modulePath.endsWith("." + t));
    }

    public static LoraConfig read(Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            throw new HfFormatException(dir + ": no " + FILE + " (a PEFT LoRA adapter folder has " + FILE + " and adapter_model.safetensors)");
        }
        return of(JSON.readTree(file.toFile()), file.toString());
    }

    public static LoraConfig of(JsonNode j, String where) {
        String type = j.path("peft_type").asText("LORA");
        if (!type.equals("LORA")) {
            throw new HfFormatException(where + ": peft_type '" + type + "' is not supported (LORA is)");
        }
        refuseIf(j.path("use_dora").asBoolean(false), where, "use_dora", "true (DoRA is not supported)");
        refuseIf(!j.path("bias").asText("none").equals("none"), where, "bias", "'" + j.path("bias").asText() + "' (only none is supported)");
        refuseIf(j.path("fan_in_fan_out").asBoolean(false), where, "fan_in_fan_out", "true (the supported families' linear layers are [out, in])");
        for (String f : new String[] {"rank_pattern", "alpha_pattern"}) {
            refuseIf(j.path(f).isObject() && !j.path(f).isEmpty(), where, f, j.path(f) + " (per-module rank or alpha is not supported)");
        }
        refuseIf(j.hasNonNull("modules_to_save") && !j.path("modules_to_save").isEmpty(), where, "modules_to_save",
                j.path("modules_to_save") + " (an adapter that also saves whole modules is not supported)");
        refuseIf(j.hasNonNull("layers_to_transform"), where, "layers_to_transform", j.path("layers_to_transform") + " (not supported)");
        if (!j.path("r").canConvertToInt() || j.path("r").asInt() < 1) {
            throw new HfFormatException(where + ": r: required, an integer >= 1");
        }
        JsonNode t = j.path("target_modules");
        List<String> modules = new ArrayList<>();
        String regex = null;
        if (t.isTextual()) {
            regex = t.asText();
        } else if (t.isArray()) {
            t.forEach(n -> modules.add(n.asText()));
        } else {
            throw new HfFormatException(where + ": target_modules: required, a list of module names or a regular expression");
        }
        for (String m : modules) {
            refuseIf(m.equals("lm_head") || m.equals("embed_tokens"), where, "target_modules", "'" + m + "' (only the attention and MLP projections can be adapted)");
        }
        double alpha = j.path("lora_alpha").isNumber() ? j.get("lora_alpha").asDouble() : j.path("r").asInt();
        return new LoraConfig(j.get("r").asInt(), alpha, modules, regex, j.path("use_rslora").asBoolean(false),
                j.path("base_model_name_or_path").asText(null));
    }

    private static void refuseIf(boolean bad, String where, String field, String why) {
        if (bad) {
            throw new HfFormatException(where + ": " + field + ": " + why);
        }
    }

    /** Writes {@code adapter_config.json} as PEFT reads it. */
    public void write(Path dir) throws IOException {
        ObjectNode j = JSON.createObjectNode();
        j.put("peft_type", "LORA").put("task_type", "CAUSAL_LM").put("r", r).put("lora_alpha", alpha).put("lora_dropout", 0.0).put("bias", "none")
                .put("fan_in_fan_out", false).put("use_rslora", rslora).put("use_dora", false).put("inference_mode", true)
                .put("init_lora_weights", true);
        if (baseModel != null) {
            j.put("base_model_name_or_path", baseModel);
        }
        if (targetRegex != null) {
            j.put("target_modules", targetRegex);
        } else {
            var a = j.putArray("target_modules");
            targetModules.forEach(a::add);
        }
        Files.createDirectories(dir);
        JSON.writerWithDefaultPrettyPrinter().writeValue(dir.resolve(FILE).toFile(), j);
    }

    /**
     * The linear layers of {@code model} this adapter adapts, by module path, with their weight's
     * shape [out, in]; refused when it adapts none (an adapter for another architecture).
     */
    public Map<String, long[]> modules(HfConfig model) {
        var out = new LinkedHashMap<String, long[]>();
        model.tensors().forEach((name, shape) -> {
            if (shape.length == 2 && name.endsWith(".weight") && name.startsWith("model.layers.")) {
                String module = name.substring(0, name.length() - ".weight".length());
                if (targets(module)) {
                    out.put(module, shape);
                }
            }
        });
        if (out.isEmpty()) {
            throw new HfFormatException("target_modules " + (targetRegex != null ? targetRegex : targetModules) + " match no linear layer of this "
                    + model.modelType() + " model (its layers are q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj)");
        }
        return out;
    }
}
