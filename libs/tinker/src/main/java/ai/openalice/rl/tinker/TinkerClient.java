package ai.openalice.rl.tinker;

import ai.openalice.rl.retry.Backoff;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A client of the Tinker training API, the protocol of the {@code tinker} Python SDK 0.25 (the
 * version SkyRL 0.4's server is built against): REST with JSON bodies, except forward_backward,
 * whose body is protobuf, and the results of forward_backward and sample, which
 * {@code retrieve_future} answers in protobuf ({@code src/main/proto/tinker_wire.proto}). Every
 * training call returns a future that this client waits for; a session is kept alive by a
 * heartbeat every 10 s (SkyRL drops a session silent for 300 s). Calls block; one client may be
 * used from several threads.
 *
 * <p>Sequence ids: forward_backward and optim_step carry the caller's {@code seqId}, and the engine
 * answers a request whose (model, seq id) it has seen with the same future — and refuses (409)
 * the same id with another body. A caller that derives its ids from its own durable step count can
 * therefore send a step again after a crash without it being applied twice.
 */
public final class TinkerClient implements AutoCloseable {
    /** The SDK version whose protocol this client speaks (sent when a session is made). */
    public static final String PROTOCOL_VERSION = "0.25.0";
    static final Duration HEARTBEAT = Duration.ofSeconds(10);

    /** Hears the engine go away and come back (for status lines and metrics). */
    public interface Listener {
        void engineAway(String reason);

        void engineBack();

        Listener NONE = new Listener() {
            @Override
            public void engineAway(String reason) {}

            @Override
            public void engineBack() {}
        };
    }

    private final TinkerHttp http;
    private final ScheduledExecutorService heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tinker-heartbeat");
        t.setDaemon(true);
        return t;
    });
    private final AtomicInteger heartbeatsSent = new AtomicInteger();
    private volatile String sessionId;
    private volatile boolean sessionLost;

    /** A client of the engine at {@code base}; {@code apiKey} may be null (SkyRL's server checks none). */
    public TinkerClient(URI base, String apiKey, Listener listener) {
        this(base, apiKey, listener, () -> Backoff.of(Duration.ofMillis(500), Duration.ofSeconds(30)), null);
    }

    /**
     * A client that waits for an engine away at most {@code outageGrace}, then throws
     * {@link TinkerUnavailableException} (for callers with a retry of their own, such as an episode's sampler).
     */
    public TinkerClient(URI base, String apiKey, Duration outageGrace) {
        this(base, apiKey, Listener.NONE, () -> Backoff.of(Duration.ofMillis(500), Duration.ofSeconds(10)), outageGrace);
    }

    TinkerClient(URI base, String apiKey, Listener listener, Supplier<Backoff> backoff, Duration outageGrace) {
        this.http = new TinkerHttp(base, apiKey, listener, backoff, outageGrace);
    }

    /** Whether the engine answers its health check (one try, no waiting). */
    public boolean healthy() {
        try {
            return "ok".equals(http.get("/api/v1/healthz").path("status").asText());
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Opens a session tagged {@code tags} and starts its heartbeats; returns its id. */
    public String createSession(List<String> tags) {
        JsonNode r = http.postJson("/api/v1/create_session", Map.of("tags", tags, "sdk_version", PROTOCOL_VERSION, "type", "create_session"));
        String id = r.path("session_id").asText();
        if (id.isEmpty()) {
            throw new IllegalStateException("create_session answered no session_id: " + r);
        }
        boolean first = sessionId == null;
        sessionId = id;
        sessionLost = false;
        if (first) { // a session made again (the engine forgot the last) keeps the one heartbeat, now for the new id
            heartbeats.scheduleAtFixedRate(this::heartbeatQuietly, HEARTBEAT.toMillis(), HEARTBEAT.toMillis(), TimeUnit.MILLISECONDS);
        }
        return id;
    }

    /** Sends one heartbeat now; false when the engine no longer knows the session (it must be made again). */
    public boolean heartbeat() {
        try {
            http.postJson("/api/v1/session_heartbeat", Map.of("session_id", requireSession(), "type", "session_heartbeat"));
            heartbeatsSent.incrementAndGet();
            return true;
        } catch (TinkerRejectedException e) {
            if (e.status() == 404) {
                sessionLost = true;
                return false;
            }
            throw e;
        }
    }

    private void heartbeatQuietly() {
        try {
            heartbeat();
        } catch (RuntimeException e) {
            // the next beat tries again; a lost session is read through sessionLost()
        }
    }

    /** Heartbeats the engine has taken. */
    public int heartbeatsSent() {
        return heartbeatsSent.get();
    }

    /** Whether a heartbeat was told the session is gone (the engine restarted or dropped it). */
    public boolean sessionLost() {
        return sessionLost;
    }

    /** Makes a model of {@code baseModel} with a new LoRA adapter of {@code rank} (seeded when {@code seed} is not null) and waits until it is ready. */
    public String createLoraModel(String baseModel, int rank, Long seed) {
        Map<String, Object> lora = new LinkedHashMap<>();
        lora.put("rank", rank);
        if (seed != null) {
            lora.put("seed", seed);
        }
        JsonNode r = http.postJson("/api/v1/create_model", Map.of("session_id", requireSession(), "base_model", baseModel, "lora_config", lora));
        String modelId = r.path("model_id").asText();
        http.futureJson(r.path("request_id").asText());
        return modelId;
    }

    /** Unloads a model and frees what it holds on the engine (as the engine does itself for a session silent too long); waits until done. */
    public void unloadModel(String modelId) {
        JsonNode r = http.postJson("/api/v1/unload_model", Map.of("model_id", modelId, "type", "unload_model"));
        http.futureJson(r.path("request_id").asText());
    }

    /** Forward and backward over {@code data}: the gradient of the summed loss is added to the model's accumulated gradient. */
    public ForwardBackwardResult forwardBackward(String modelId, int seqId, List<Datum> data, LossFn loss, Map<String, Double> lossConfig) {
        return pass(modelId, seqId, data, loss, lossConfig, false);
    }

    /** The forward pass alone (no gradient): the model's log-probabilities and the loss terms. */
    public ForwardBackwardResult forward(String modelId, int seqId, List<Datum> data, LossFn loss, Map<String, Double> lossConfig) {
        return pass(modelId, seqId, data, loss, lossConfig, true);
    }

    private ForwardBackwardResult pass(String modelId, int seqId, List<Datum> data, LossFn loss, Map<String, Double> lossConfig, boolean forwardOnly) {
        if (data.isEmpty()) {
            throw new IllegalArgumentException("forward_backward needs at least one datum");
        }
        JsonNode r = http.postProto("/api/v1/forward_backward", Wire.forwardBackward(modelId, seqId, data, loss, lossConfig, forwardOnly));
        return Wire.forwardBackwardResult(http.futureProto(r.path("request_id").asText()));
    }

    /** Applies the accumulated gradient with Adam and clears it; returns the engine's metrics (e.g. the gradient norm). */
    public Map<String, Double> optimStep(String modelId, int seqId, AdamParams adam) {
        Map<String, Object> params = new LinkedHashMap<>(Map.of("learning_rate", adam.learningRate(), "beta1", adam.beta1(), "beta2", adam.beta2(),
                "eps", adam.eps(), "weight_decay", adam.weightDecay()));
        if (adam.gradClipNorm() > 0) {
            params.put("grad_clip_norm", adam.gradClipNorm());
        }
        JsonNode r = http.postJson("/api/v1/optim_step", Map.of("model_id", modelId, "adam_params", params, "seq_id", seqId));
        Map<String, Double> metrics = new LinkedHashMap<>();
        http.futureJson(r.path("request_id").asText()).path("metrics").properties().forEach(e -> metrics.put(e.getKey(), e.getValue().asDouble()));
        return metrics;
    }

    /** Saves the weights and the optimizer's state under {@code name} (to resume from); returns its tinker:// path. */
    public String saveWeights(String modelId, String name) {
        JsonNode r = http.postJson("/api/v1/save_weights", Map.of("model_id", modelId, "path", name, "type", "save_weights"));
        return path(http.futureJson(r.path("request_id").asText()), "save_weights");
    }

    /** Saves the weights for sampling (a PEFT adapter) under {@code name}; returns its tinker:// path, which {@link #sample} takes. */
    public String saveWeightsForSampler(String modelId, String name) {
        JsonNode r = http.postJson("/api/v1/save_weights_for_sampler", Map.of("model_id", modelId, "path", name, "type", "save_weights_for_sampler"));
        return path(http.futureJson(r.path("request_id").asText()), "save_weights_for_sampler");
    }

    /** Loads weights saved by {@link #saveWeights} into a model (and the optimizer's state with {@code optimizer}). */
    public void loadWeights(String modelId, String path, boolean optimizer, int seqId) {
        JsonNode r = http.postJson("/api/v1/load_weights", Map.of("model_id", modelId, "path", path, "optimizer", optimizer, "seq_id", seqId,
                "type", "load_weights"));
        http.futureJson(r.path("request_id").asText());
    }

    /** Draws {@code n} continuations of {@code prompt} from the weights saved at {@code modelPath} (a tinker:// path). */
    public List<Sample> sample(String modelPath, int[] prompt, int n, SamplingParams params) {
        return sample("model_path", modelPath, prompt, n, params);
    }

    /** Draws {@code n} continuations of {@code prompt} from the base model {@code baseModel} itself (no adapter). */
    public List<Sample> sampleBase(String baseModel, int[] prompt, int n, SamplingParams params) {
        return sample("base_model", baseModel, prompt, n, params);
    }

    private List<Sample> sample(String source, String model, int[] prompt, int n, SamplingParams params) {
        Map<String, Object> sampling = new LinkedHashMap<>();
        sampling.put("max_tokens", params.maxTokens());
        sampling.put("temperature", params.temperature());
        sampling.put("top_p", params.topP());
        if (params.seed() != null) {
            sampling.put("seed", params.seed());
        }
        if (!params.stopTokens().isEmpty()) {
            sampling.put("stop", params.stopTokens());
        }
        Map<String, Object> input = Map.of("chunks", List.of(Map.of("type", "encoded_text", "tokens", prompt)));
        JsonNode r = http.postJson("/api/v1/asample", Map.of("num_samples", n, "prompt", input, "sampling_params", sampling, source, model,
                "type", "sample"));
        return Wire.samples(http.futureProto(r.path("request_id").asText()));
    }

    /**
     * Fetches the sampler weights saved at {@code samplerPath} (a PEFT adapter: adapter_config.json and
     * adapter_model.safetensors) into the folder {@code dir}, which must not exist; written whole or not at all. An
     * adapter_config.json that names no target modules gets those its weights are for (see {@link PeftAdapter}).
     */
    public void downloadSamplerWeights(String samplerPath, Path dir) {
        TinkerPaths p = TinkerPaths.parse(samplerPath);
        if (Files.exists(dir)) {
            throw new IllegalArgumentException(dir + " exists");
        }
        try {
            Path tmp = Files.createTempDirectory(dir.toAbsolutePath().getParent(), dir.getFileName() + ".tmp-");
            try {
                Path archive = tmp.resolve("archive.tar.gz");
                http.download("/api/v1/training_runs/" + p.model() + "/checkpoints/" + p.checkpoint() + "/archive", archive);
                Path files = Files.createDirectory(tmp.resolve("files"));
                Archives.untarGz(archive, files);
                PeftAdapter.nameTargetModules(files);
                Files.move(files, dir, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Archives.deleteTree(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("fetching " + samplerPath + " into " + dir + ": " + e.getMessage(), e);
        }
    }

    private static String path(JsonNode result, String what) {
        String p = result.path("path").asText();
        if (p.isEmpty()) {
            throw new IllegalStateException(what + " answered no path: " + result);
        }
        return p;
    }

    private String requireSession() {
        String id = sessionId;
        if (id == null) {
            throw new IllegalStateException("no session: call createSession first");
        }
        return id;
    }

    @Override
    public void close() {
        heartbeats.shutdownNow();
    }
}
