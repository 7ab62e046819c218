package ai.openalice.rl.inference.engine;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;

/**
 * SGLang: {@code POST /update_weights_from_disk} ({@code model_path}, {@code weight_version}) for
 * full weights, {@code POST /load_lora_adapter} / {@code /unload_lora_adapter} ({@code lora_name},
 * {@code lora_path}) for adapters, and the native {@code POST /generate} with {@code input_ids},
 * {@code return_logprob} and {@code lora_path} (the adapter's name), whose
 * {@code meta_info.output_token_logprobs} are {@code [logprob, token_id, text]} per token.
 */
public final class SglangEngine implements ServingEngine {
    private final EngineHttp http;

    SglangEngine(EngineHttp http) {
        this.http = http;
    }

    @Override
    public String name() {
        return "sglang";
    }

    @Override
    public void loadFull(long version, Path dir) {
        var body = http.object().put("model_path", dir.toString()).put("weight_version", "v" + version);
        succeeded(http.postJson("/update_weights_from_disk", body), "update_weights_from_disk v" + version);
    }

    @Override
    public void loadAdapter(String name, Path dir) {
        succeeded(http.postJson("/load_lora_adapter", http.object().put("lora_name", name).put("lora_path", dir.toString())), "load_lora_adapter " + name);
    }

    @Override
    public void unloadAdapter(String name) {
        http.post("/unload_lora_adapter", http.object().put("lora_name", name));
    }

    private static void succeeded(JsonNode answer, String what) {
        if (answer.has("success") && !answer.get("success").asBoolean()) {
            String why = answer.path("message").asText(answer.path("error_message").asText(""));
            throw new EngineException("SGLang refused " + what + ": " + why, false);
        }
    }

    @Override
    public Completion complete(Request r, String adapter) {
        var body = http.object();
        var ids = body.putArray("input_ids");
        for (int t : r.prompt()) {
            ids.add(t);
        }
        var sampling = body.putObject("sampling_params").put("max_new_tokens", r.maxTokens()).put("temperature", r.temperature()).put("top_p", r.topP());
        if (r.seed() != null) {
            sampling.put("sampling_seed", r.seed());
        }
        if (!r.stop().isEmpty()) {
            var stop = sampling.putArray("stop");
            r.stop().forEach(stop::add);
        }
        body.put("return_logprob", true);
        if (adapter != null) {
            body.put("lora_path", adapter);
        }
        JsonNode answer = http.postJson("/generate", body);
        JsonNode meta = answer.path("meta_info");
        JsonNode lps = meta.path("output_token_logprobs");
        int[] tokens = new int[lps.size()];
        double[] logprobs = new double[lps.size()];
        for (int i = 0; i < tokens.length; i++) {
            logprobs[i] = lps.get(i).get(0).asDouble();
            tokens[i] = lps.get(i).get(1).asInt();
        }
        String finish = meta.path("finish_reason").path("type").asText("length");
        return new Completion(tokens, logprobs, answer.path("text").asText(""), finish.equals("stop") ? "stop" : "length",
                meta.path("prompt_tokens").asInt(r.prompt().length));
    }
}
