package ai.openalice.rl.inference.engine;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;

/**
 * vLLM's OpenAI-compatible server with runtime LoRA updating
 * ({@code VLLM_ALLOW_RUNTIME_LORA_UPDATING=True}): {@code POST /v1/load_lora_adapter} /
 * {@code /v1/unload_lora_adapter} ({@code lora_name}, {@code lora_path}), and
 * {@code POST /v1/completions} with the adapter's name as {@code model}, token-id prompts,
 * {@code logprobs} and {@code return_tokens_as_token_ids} (tokens come back as {@code token_id:N}).
 * Full weights are reloaded in place through the development-mode endpoints of vLLM's server
 * ({@code VLLM_SERVER_DEV_MODE=1}): {@code POST /collective_rpc} with
 * {@code {"method": "reload_weights", "kwargs": {"weights_path": <folder>}}} has every worker read
 * the folder's safetensors, then {@code POST /reset_prefix_cache} drops the KV blocks the old
 * weights computed — without it a prompt sharing a cached prefix is answered partly by the old
 * weights. A vLLM started without dev mode answers 404: the checkpoint is refused naming the ways
 * around it. Completions of the full weights name no {@code model} (the served one).
 */
public final class VllmEngine implements ServingEngine {
    static final String NO_DEV_MODE = "vLLM reloads full weights through its development-mode endpoint /collective_rpc, which this"
            + " server does not have: start it with VLLM_SERVER_DEV_MODE=1, or train a LoRA adapter (trainer.lora.rank > 0, vLLM started"
            + " with --enable-lora and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True), or use SGLang";

    private final EngineHttp http;

    VllmEngine(EngineHttp http) {
        this.http = http;
    }

    @Override
    public String name() {
        return "vllm";
    }

    @Override
    public void loadFull(long version, Path dir) {
        var rpc = http.object().put("method", "reload_weights");
        rpc.putObject("kwargs").put("weights_path", dir.toString());
        try {
            http.post("/collective_rpc", rpc);
        } catch (EngineException e) {
            if (e.getMessage().contains(" answered 404")) {
                throw new EngineException("checkpoint v" + version + " holds full weights: " + NO_DEV_MODE, false);
            }
            throw e;
        }
        http.post("/reset_prefix_cache", http.object());
    }

    @Override
    public void loadAdapter(String name, Path dir) {
        http.post("/v1/load_lora_adapter", http.object().put("lora_name", name).put("lora_path", dir.toString()));
    }

    @Override
    public void unloadAdapter(String name) {
        http.post("/v1/unload_lora_adapter", http.object().put("lora_name", name));
    }

    @Override
    public Completion complete(Request r, String adapter) {
        var body = http.object();
        if (adapter != null) {
            body.put("model", adapter);
        }
        var prompt = body.putArray("prompt");
        for (int t : r.prompt()) {
            prompt.add(t);
        }
        body.put("max_tokens", r.maxTokens()).put("temperature", r.temperature()).put("top_p", r.topP());
        if (r.seed() != null) {
            body.put("seed", r.seed());
        }
        if (!r.stop().isEmpty()) {
            var stop = body.putArray("stop");
            r.stop().forEach(stop::add);
        }
        body.put("logprobs", 1).put("return_tokens_as_token_ids", true);
        JsonNode answer = http.postJson("/v1/completions", body);
        JsonNode choice = answer.path("choices").path(0);
        JsonNode names = choice.path("logprobs").path("tokens");
        JsonNode lps = choice.path("logprobs").path("token_logprobs");
        int[] tokens = new int[names.size()];
        double[] logprobs = new double[lps.size()];
        for (int i = 0; i < tokens.length; i++) {
            String t = names.get(i).asText();
            if (!t.startsWith("token_id:")) {
                throw new EngineException("vLLM answered token '" + t + "', not token_id:N (return_tokens_as_token_ids ignored?)", false);
            }
            tokens[i] = Integer.parseInt(t.substring("token_id:".length()));
        }
        for (int i = 0; i < logprobs.length; i++) {
            logprobs[i] = lps.get(i).asDouble();
        }
        return new Completion(tokens, logprobs, choice.path("text").asText(""), choice.path("finish_reason").asText("length").equals("stop") ? "stop"
                : "length", answer.path("usage").path("prompt_tokens").asInt(r.prompt().length));
    }
}
