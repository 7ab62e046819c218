package ai.openalice.rl.inference.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.inference.config.InferenceConfig;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.OrtPolicy;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Weight sync to SGLang and vLLM against the stand-in that serves from whatever it was last told
 * to load: the calls and their order, a sampled version never before its load, and every answer's
 * version having produced its tokens (the same greedy tokens as the in-process policy of that
 * checkpoint).
 */
class EngineGatewayTest {
    static final int[] PROMPT = {4, 9, 2};
    static final ServingEngine.Request GREEDY = new ServingEngine.Request(PROMPT, 6, 0, 1, 0L, List.of());

    @TempDir
    static Path root;
    static HfConfig config;
    static Path source;
    static Map<String, float[]> base;

    @BeforeAll
    static void model() throws Exception {
        var json = TinyModels.config("qwen2").put("vocab_size", 32);
        config = HfConfig.of(json, "qwen2");
        base = TinyModels.randomWeights(config, 12);
        source = TinyModels.write(root.resolve("model"), json, base, DType.F32, 1);
    }

    /** A full-weight checkpoint of version v (its own random weights). */
    static Path full(long v) {
        Path dir = root.resolve("full-v" + v);
        if (!Files.exists(dir)) {
            Checkpoint.saveHf(dir, config, source, TinyModels.randomWeights(config, 100 + v), null, DType.F32, v, v, Map.of(), 0);
        }
        return dir;
    }

    /** An adapter checkpoint of version v (rank 2 on q_proj and v_proj, B random so each version differs). */
    static Path adapter(long v) {
        Path dir = root.resolve("lora-v" + v);
        if (!Files.exists(dir)) {
            var cfg = new LoraConfig(2, 4, List.of("q_proj", "v_proj"), null, false, source.toString());
            var init = LoraAdapter.initialise(cfg, config, v);
            var rnd = new Random(200 + v);
            var b = new LinkedHashMap<String, float[]>();
            init.b().forEach((k, x) -> {
                float[] y = new float[x.length];
                for (int i = 0; i < y.length; i++) {
                    y[i] = (float) rnd.nextGaussian();
                }
                b.put(k, y);
            });
            var adapter = new LoraAdapter(cfg, init.a(), b);
            Checkpoint.saveHf(dir, config, source, adapter.merge(base), adapter, DType.F32, v, v, Map.of(), 0);
        }
        return dir;
    }

    static int[] inProcess(Path checkpoint) {
        try (var p = new OrtPolicy(checkpoint)) {
            return p.complete(CompletionRequest.greedy(PROMPT, 6)).tokens();
        }
    }

    @Test
    void sglangFullWeightsAreSwappedBetweenCompletionsNeverUnderOne() throws Exception {
        try (var engine = new EngineStandIn()) {
            var gateway = new EngineGateway(Engines.open(InferenceConfig.Engine.SGLANG, engine.url(), null), 3);
            gateway.load(0, full(0));
            var a0 = gateway.complete(GREEDY, null);
            assertEquals(0, a0.version());
            assertArrayEquals(inProcess(full(0)), a0.completion().tokens(), "v0's tokens");
            gateway.load(1, full(1));
            var a1 = gateway.complete(GREEDY, null);
            assertEquals(1, a1.version());
            assertArrayEquals(inProcess(full(1)), a1.completion().tokens(), "v1's tokens");
            assertThrows(EngineGateway.NotLoaded.class, () -> gateway.complete(GREEDY, 0L), "full weights hold one version");
            assertEquals(List.of("update_weights_from_disk v0", "generate v0", "update_weights_from_disk v1", "generate v1"), engine.calls());

            // a completion in flight when v2 arrives: the swap waits for it, and it is labelled v1
            engine.hold = new CountDownLatch(1);
            var inFlight = CompletableFuture.supplyAsync(() -> gateway.complete(GREEDY, null));
            assertTrue(engine.generating.await(30, TimeUnit.SECONDS));
            var swap = CompletableFuture.supplyAsync(() -> gateway.load(2, full(2)));
            Thread.sleep(300);
            assertFalse(engine.calls().contains("update_weights_from_disk v2"), "the swap waits for the completion in flight");
            engine.hold.countDown();
            assertEquals(1, inFlight.get(30, TimeUnit.SECONDS).version());
            swap.get(30, TimeUnit.SECONDS);
            engine.hold = null;
            assertEquals(List.of("generate v1", "update_weights_from_disk v2"), engine.calls().subList(4, 6));
            assertEquals(2, gateway.complete(GREEDY, null).version());
        }
    }

    @Test
    void aRefusedLoadKeepsTheVersionServedAndNamesTheEnginesReason() throws Exception {
        try (var engine = new EngineStandIn()) {
            var gateway = new EngineGateway(Engines.open(InferenceConfig.Engine.SGLANG, engine.url(), null), 3);
            gateway.load(0, full(0));
            Path broken = Files.createDirectories(root.resolve("broken-v1"));
            Files.writeString(broken.resolve("REFUSE"), "");
            var e = assertThrows(EngineException.class, () -> gateway.load(1, broken));
            assertEquals("SGLang refused update_weights_from_disk v1: Failed to get weights iterator: shape mismatch", e.getMessage());
            assertFalse(e.unavailable(), "a refusal is not an outage: not retried");
            assertEquals(List.of(0L), gateway.versions());
            assertEquals(0, gateway.complete(GREEDY, null).version());
        }
        var gone = new EngineGateway(Engines.open(InferenceConfig.Engine.SGLANG, URI.create("http://127.0.0.1:9"), null), 3);
        assertTrue(assertThrows(EngineException.class, () -> gone.load(0, full(0))).unavailable(), "an engine that cannot be reached is waited for");
    }

    @Test
    void vllmAdaptersArePinnedByNameAndRetiredBeyondTheWindow() throws Exception {
        try (var engine = new EngineStandIn()) {
            var gateway = new EngineGateway(Engines.open(InferenceConfig.Engine.VLLM, engine.url(), null), 2);
            for (long v = 0; v <= 2; v++) {
                gateway.load(v, adapter(v));
            }
            assertEquals(List.of(1L, 2L), gateway.versions());
            var pinned = gateway.complete(GREEDY, 1L);
            assertEquals(1, pinned.version());
            assertArrayEquals(inProcess(adapter(1)), pinned.completion().tokens(), "v1's adapter produced the v1 answer");
            var newest = gateway.complete(GREEDY, null);
            assertEquals(2, newest.version());
            assertArrayEquals(inProcess(adapter(2)), newest.completion().tokens());
            assertThrows(EngineGateway.NotLoaded.class, () -> gateway.complete(GREEDY, 0L));
            assertEquals(List.of("v1/load_lora_adapter alice-v0", "v1/load_lora_adapter alice-v1", "v1/load_lora_adapter alice-v2",
                    "v1/unload_lora_adapter alice-v0", "completions alice-v1", "completions alice-v2"), engine.calls());

            gateway.load(3, full(3));
            assertEquals(List.of(3L), gateway.versions(), "full weights hold one version");
            var reloaded = gateway.complete(GREEDY, null);
            assertEquals(3, reloaded.version());
            assertArrayEquals(inProcess(full(3)), reloaded.completion().tokens(), "v3's full weights answered");
            assertEquals(List.of("collective_rpc reload_weights full-v3", "reset_prefix_cache", "completions full-v3"),
                    engine.calls().subList(6, 9), "reloaded, then the prefix cache the old weights filled dropped, then asked without an adapter");
        }
    }

    @Test
    void vllmWithoutDevModeRefusesFullWeightsNamingTheWaysAround() throws Exception {
        try (var engine = new EngineStandIn()) {
            engine.vllmDevMode = false;
            var gateway = new EngineGateway(Engines.open(InferenceConfig.Engine.VLLM, engine.url(), null), 2);
            gateway.load(1, adapter(1));
            var e = assertThrows(EngineException.class, () -> gateway.load(2, full(2)));
            assertTrue(e.getMessage().contains("VLLM_SERVER_DEV_MODE=1") && e.getMessage().contains("checkpoint v2 holds full weights"), e.getMessage());
            assertTrue(!e.unavailable(), "a refusal, not an outage to wait out");
            assertEquals(List.of(1L), gateway.versions(), "the adapter keeps serving");
        }
    }

    @Test
    void sglangAdaptersTravelAsLoraPath() throws Exception {
        try (var engine = new EngineStandIn()) {
            var gateway = new EngineGateway(Engines.open(InferenceConfig.Engine.SGLANG, engine.url(), null), 3);
            gateway.load(5, adapter(5));
            var a = gateway.complete(GREEDY, 5L);
            assertArrayEquals(inProcess(adapter(5)), a.completion().tokens());
            assertEquals(List.of("load_lora_adapter alice-v5", "generate alice-v5"), engine.calls());
        }
    }
}
