package ai.openalice.rl.inference.engine;

import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.OrtPolicy;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;

/**
 * An HTTP stand-in for a GPU serving engine — the one accepted stand-in, since none runs here. It
 * implements exactly the endpoints the inference service calls, SGLang's
 * ({@code /update_weights_from_disk}, {@code /load_lora_adapter}, {@code /unload_lora_adapter},
 * {@code /generate}) and vLLM's ({@code /v1/load_lora_adapter}, {@code /v1/unload_lora_adapter},
 * {@code /v1/completions}), and answers completions from the in-process policy (ONNX Runtime) at
 * whatever checkpoint it was last told to load. It records every call, in the order they finish.
 */
final class EngineStandIn implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final Map<String, OrtPolicy> adapters = new HashMap<>();
    private OrtPolicy full;
    private String fullVersion;
    final List<String> calls = new ArrayList<>();
    /**
     * Scripted (for a test inside a Quarkus application, whose class loader holds ONNX Runtime's
     * native library already): no policy is loaded, and every completion is the tokens 10, 11, 12
     * plus the loaded version's number, log-prob −1 each.
     */
    private final boolean scripted;

    /** Whether vLLM's development-mode endpoints (/collective_rpc, /reset_prefix_cache) answer; else 404 as in vLLM. */
    volatile boolean vllmDevMode = true;

    /** When set, /generate waits for it before answering (a completion in flight). */
    volatile CountDownLatch hold;
    final CountDownLatch generating = new CountDownLatch(1);

    EngineStandIn() throws IOException {
        this(false);
    }

    EngineStandIn(boolean scripted) throws IOException {
        this.scripted = scripted;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newCachedThreadPool());
        server.start();
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    List<String> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    private void call(String c) {
        synchronized (calls) {
            calls.add(c);
        }
    }

    private void handle(HttpExchange x) throws IOException {
        JsonNode body = JSON.readTree(x.getRequestBody());
        try {
            switch (x.getRequestURI().getPath()) {
                case "/update_weights_from_disk" -> {
                    Path dir = Path.of(body.get("model_path").asText());
                    if (Files.exists(dir.resolve("REFUSE"))) {
                        json(x, 200, JSON.createObjectNode().put("success", false).put("message", "Failed to get weights iterator: shape mismatch"));
                        return;
                    }
                    synchronized (this) {
                        if (full != null && !scripted) {
                            full.close();
                        }
                        full = open(dir);
                        fullVersion = body.get("weight_version").asText();
                    }
                    call("update_weights_from_disk " + fullVersion);
                    json(x, 200, JSON.createObjectNode().put("success", true).put("message", "Succeeded to update model weights.").put("num_paused_requests", 0));
                }
                case "/collective_rpc" -> {
                    if (!vllmDevMode || !body.path("method").asText().equals("reload_weights")) {
                        json(x, 404, JSON.createObjectNode().put("detail", "Not Found"));
                        return;
                    }
                    Path dir = Path.of(body.at("/kwargs/weights_path").asText());
                    synchronized (this) {
                        if (full != null && !scripted) {
                            full.close();
                        }
                        full = open(dir);
                        fullVersion = dir.getFileName().toString();
                    }
                    call("collective_rpc reload_weights " + fullVersion);
                    json(x, 200, JSON.createObjectNode().putArray("results").addNull());
                }
                case "/reset_prefix_cache" -> {
                    call("reset_prefix_cache");
                    if (vllmDevMode) {
                        text(x, 200, "");
                    } else {
                        json(x, 404, JSON.createObjectNode().put("detail", "Not Found"));
                    }
                }
                case "/load_lora_adapter", "/v1/load_lora_adapter" -> {
                    String name = body.get("lora_name").asText();
                    synchronized (this) {
                        adapters.put(name, open(Path.of(body.get("lora_path").asText())));
                    }
                    call(x.getRequestURI().getPath().substring(1) + " " + name);
                    if (x.getRequestURI().getPath().startsWith("/v1")) {
                        text(x, 200, "Success: LoRA adapter '" + name + "' added successfully.");
                    } else {
                        json(x, 200, JSON.createObjectNode().put("success", true));
                    }
                }
                case "/unload_lora_adapter", "/v1/unload_lora_adapter" -> {
                    String name = body.get("lora_name").asText();
                    synchronized (this) {
                        OrtPolicy p = adapters.remove(name);
                        if (p != null && !scripted) {
                            p.close();
                        }
                    }
                    call(x.getRequestURI().getPath().substring(1) + " " + name);
                    text(x, 200, "Success: LoRA adapter '" + name + "' removed successfully.");
                }
                case "/generate" -> generate(x, body);
                case "/v1/completions" -> completions(x, body);
                default -> text(x, 404, "Not Found");
            }
        } catch (RuntimeException | Error e) {
            text(x, 500, e.toString());
        }
    }

    private void generate(HttpExchange x, JsonNode body) throws IOException {
        String adapter = body.path("lora_path").isTextual() ? body.get("lora_path").asText() : null;
        JsonNode sp = body.get("sampling_params");
        OrtPolicy p;
        String served;
        synchronized (this) {
            p = adapter != null ? adapters.get(adapter) : full;
            served = adapter != null ? (adapters.containsKey(adapter) ? adapter : null) : fullVersion;
        }
        if (served == null) {
            text(x, 400, "no weights loaded for " + adapter);
            return;
        }
        Completion c = answer(p, ints(body.get("input_ids")), sp.get("max_new_tokens").asInt(), sp.get("temperature").asDouble(),
                sp.get("top_p").asDouble(), sp.has("sampling_seed") ? sp.get("sampling_seed").asLong() : null, served);
        awaitHold();
        call("generate " + served);
        ObjectNode out = JSON.createObjectNode().put("text", c.text());
        ObjectNode meta = out.putObject("meta_info");
        var lps = meta.putArray("output_token_logprobs");
        for (int i = 0; i < c.tokens().length; i++) {
            lps.addArray().add(c.logprobs()[i]).add(c.tokens()[i]).addNull();
        }
        meta.putObject("finish_reason").put("type", c.finish() == Completion.FinishReason.STOP ? "stop" : "length");
        meta.put("prompt_tokens", body.get("input_ids").size()).put("completion_tokens", c.tokens().length);
        json(x, 200, out);
    }

    private void completions(HttpExchange x, JsonNode body) throws IOException {
        String model = body.path("model").asText(null);
        OrtPolicy p;
        boolean known;
        synchronized (this) {
            p = model == null ? full : adapters.get(model);
            known = model == null ? fullVersion != null : adapters.containsKey(model);
            model = model == null ? fullVersion : model;
        }
        if (!known) {
            json(x, 404, JSON.createObjectNode().put("object", "error").put("message", "The model `" + model + "` does not exist."));
            return;
        }
        if (!body.path("return_tokens_as_token_ids").asBoolean()) {
            text(x, 400, "this stand-in answers token ids only");
            return;
        }
        Completion c = answer(p, ints(body.get("prompt")), body.get("max_tokens").asInt(), body.get("temperature").asDouble(),
                body.get("top_p").asDouble(), body.has("seed") ? body.get("seed").asLong() : null, model);
        awaitHold();
        call("completions " + model);
        ObjectNode out = JSON.createObjectNode();
        ObjectNode choice = out.putArray("choices").addObject().put("index", 0).put("text", c.text());
        var lp = choice.putObject("logprobs");
        var tokens = lp.putArray("tokens");
        var logprobs = lp.putArray("token_logprobs");
        for (int i = 0; i < c.tokens().length; i++) {
            tokens.add("token_id:" + c.tokens()[i]);
            logprobs.add(c.logprobs()[i]);
        }
        choice.put("finish_reason", c.finish() == Completion.FinishReason.STOP ? "stop" : "length");
        out.putObject("usage").put("prompt_tokens", body.get("prompt").size()).put("completion_tokens", c.tokens().length);
        json(x, 200, out);
    }

    /** The policy of a checkpoint folder; scripted: a stand-in policy answering 10, 11, 12 and the folder's version. */
    private OrtPolicy open(Path dir) {
        return scripted ? null : new OrtPolicy(dir);
    }

    private Completion answer(OrtPolicy p, int[] prompt, int maxTokens, double temperature, double topP, Long seed, String version) {
        if (scripted) {
            int v = Integer.parseInt(version.replaceAll("\\D", ""));
            int[] tokens = {10, 11, 12, v};
            return new Completion(tokens, new double[] {-1, -1, -1, -1}, "scripted", Completion.FinishReason.LENGTH, 0);
        }
        return p.complete(new CompletionRequest(prompt, maxTokens, temperature, topP, seed, List.of(), null));
    }

    private void awaitHold() {
        CountDownLatch h = hold;
        if (h != null) {
            generating.countDown();
            try {
                h.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static int[] ints(JsonNode a) {
        int[] out = new int[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.get(i).asInt();
        }
        return out;
    }

    private static void json(HttpExchange x, int status, JsonNode body) throws IOException {
        x.getResponseHeaders().add("Content-Type", "application/json");
        send(x, status, body.toString());
    }

    private static void text(HttpExchange x, int status, String body) throws IOException {
        send(x, status, body);
    }

    private static void send(HttpExchange x, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        x.sendResponseHeaders(status, b.length);
        try (var out = x.getResponseBody()) {
            out.write(b);
        }
    }

    @Override
    public synchronized void close() {
        server.stop(0);
        if (full != null) {
            full.close();
        }
        adapters.values().stream().filter(Objects::nonNull).forEach(OrtPolicy::close);
    }
}
