package ai.openalice.rl.inference.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.OpenAiPolicy;
import ai.openalice.rl.testkit.PythonReference;
import ai.openalice.rl.testkit.RealVllm;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The service with {@code inference.engine=vllm} in front of a real vLLM (PyPI's CPU build, 0.32.0)
 * serving SmolLM2-135M-Instruct: the start checkpoint — a LoRA adapter alice-rl wrote over
 * SmolLM2, without the merged graph, as {@code trainer.export-onnx=false} writes one — loaded into
 * vLLM through {@code /v1/load_lora_adapter}, completions forwarded with the version's adapter and
 * labelled with it, and vLLM's greedy tokens equal to transformers' greedy {@code generate} with
 * PEFT's reading of the same adapter; the runner's own client records what vLLM sampled.
 */
@QuarkusTest
@TestProfile(RealVllmServingTest.Profile.class)
class RealVllmServingTest {
    static final ObjectMapper M = new ObjectMapper();
    static final URI VLLM = RealVllm.smolLm2();
    static final Path V4 = checkpoint();

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("inference.engine", "vllm", "inference.engine-url", VLLM.toString(), "inference.checkpoint", V4.toString());
        }
    }

    static Path checkpoint() {
        try {
            Path source = PythonReference.smolLm2();
            HfModel m = HfModel.load(source);
            var adapter = LoraAdapter.initialise(new LoraConfig(8, 16, List.of("q_proj", "v_proj"), null, false, source.toString()), m.config(), 5);
            var rnd = new Random(6);
            adapter.b().values().forEach(b -> {
                for (int i = 0; i < b.length; i++) {
                    b[i] = (float) (0.15 * rnd.nextGaussian()); // strong enough to change the greedy answer
                }
            });
            Path dir = Files.createTempDirectory("vllm-engine").resolve("v4");
            Checkpoint.saveHf(dir, m.config(), source, adapter.merge(m.floats()), adapter, DType.F32, 4, 40, Map.of(), 0, false);
            return dir;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @TestHTTPResource("/")
    URL base;

    @Test
    void theAdapterIsServedByVllmAsPeftAndTransformersGenerate() throws Exception {
        Path messages = Files.createTempFile("messages", ".json");
        Files.writeString(messages, "[{\"role\": \"user\", \"content\": \"Name three colours.\"}]");
        int[] prompt = PythonReference.ints(PythonReference.reference("chat", "--model", V4.toString(), "--messages", messages.toString()).get("ids"));
        String ids = IntStream.of(prompt).mapToObj(Integer::toString).collect(Collectors.joining(","));
        int[] expected = PythonReference.ints(PythonReference.reference("generate", "--model", PythonReference.smolLm2().toString(), "--adapter",
                V4.toString(), "--tokens", ids, "--max-new-tokens", "24").get("tokens"));
        int[] base = PythonReference.ints(PythonReference.reference("generate", "--model", PythonReference.smolLm2().toString(), "--tokens", ids,
                "--max-new-tokens", "24").get("tokens"));
        assertTrue(!Arrays.equals(expected, base), "the adapter changes the greedy answer (else vLLM ignoring it would pass)");

        var r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(this.base + "v1/completions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\": [" + ids + "], \"max_tokens\": 24, \"temperature\": 0}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        JsonNode j = M.readTree(r.body());
        assertEquals(4, j.get("policy_version").asLong(), "labelled with the version whose adapter vLLM used");
        assertArrayEquals(expected, PythonReference.ints(j.at("/choices/0/tokens")), "vLLM's greedy tokens with the adapter: " + r.body());

        try (var runner = new OpenAiPolicy(URI.create(this.base.toString()), null, -1, Duration.ofMinutes(2))) {
            var c = runner.complete(CompletionRequest.greedy(prompt, 24));
            assertEquals(4, c.policyVersion(), "the runner records the version vLLM served");
            assertArrayEquals(expected, c.tokens(), "the token ids the runner records are vLLM's");
        }
        JsonNode models = M.readTree(HttpClient.newHttpClient().send(HttpRequest.newBuilder(VLLM.resolve("/v1/models")).build(),
                HttpResponse.BodyHandlers.ofString()).body());
        System.out.println("[vLLM] models: " + models.get("data").findValuesAsText("id"));
        assertTrue(models.get("data").findValuesAsText("id").size() >= 2, "the base and the loaded adapter: " + models);
    }
}
