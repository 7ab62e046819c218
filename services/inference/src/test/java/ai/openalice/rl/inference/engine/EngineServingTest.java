package ai.openalice.rl.inference.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.ArtifactRef;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.OpenAiPolicy;
import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Waits;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The service with {@code inference.engine=sglang} in front of the engine stand-in (scripted here:
 * EngineGatewayTest checks the answers against the in-process policy): the start checkpoint loaded
 * into the engine, {@code /v1/completions} forwarded and answered with what the engine sampled and
 * the version that produced it — also through the runner's own client — and what the engine mode
 * refuses, by name.
 */
@QuarkusTest
@TestProfile(EngineServingTest.Profile.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EngineServingTest {
    static final ObjectMapper M = new ObjectMapper();
    static final EngineStandIn ENGINE = start();
    static final Path V0 = checkpoint();

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("inference.engine", "sglang", "inference.engine-url", ENGINE.url().toString(), "inference.checkpoint", V0.toString());
        }
    }

    static EngineStandIn start() {
        try {
            return new EngineStandIn(true); // scripted: this JVM's Quarkus class loader holds ONNX Runtime already
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static Path checkpoint() {
        try {
            Path root = Files.createTempDirectory("inference-engine");
            var json = TinyModels.config("qwen2").put("vocab_size", 32);
            HfConfig c = HfConfig.of(json, "qwen2");
            var weights = TinyModels.randomWeights(c, 21);
            Path source = TinyModels.write(root.resolve("model"), json, weights, DType.F32, 1);
            Checkpoint.saveHf(root.resolve("v0"), c, source, weights, null, DType.F32, 0, 0, Map.of(), 0);
            return root.resolve("v0");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @TestHTTPResource("/")
    URL base;

    @Inject
    Engines engines;

    final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> post(String path, String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    @Order(1)
    void completionsAreForwardedAndLabelledWithTheEnginesVersion() throws Exception {
        assertEquals("update_weights_from_disk v0", ENGINE.calls().getFirst(), "the start checkpoint went to the engine");
        int[] expected = {10, 11, 12, 0}; // the scripted engine's answer at v0
        var r = post("v1/completions", "{\"prompt\": [4, 9, 2], \"max_tokens\": 6, \"temperature\": 0}");
        assertEquals(200, r.statusCode(), r.body());
        JsonNode j = M.readTree(r.body());
        assertEquals(0, j.get("policy_version").asLong());
        assertArrayEquals(expected, M.convertValue(j.at("/choices/0/tokens"), int[].class));
        assertEquals(3, j.at("/usage/prompt_tokens").asInt());

        try (var runner = new OpenAiPolicy(URI.create(base.toString()), null, -1, Duration.ofMinutes(1))) {
            var c = runner.complete(CompletionRequest.greedy(new int[] {4, 9, 2}, 6));
            assertEquals(0, c.policyVersion(), "the runner records the version the engine served");
            assertArrayEquals(expected, c.tokens());
        }
        assertTrue(M.readTree(http.send(HttpRequest.newBuilder(URI.create(base + "v1/models")).build(), HttpResponse.BodyHandlers.ofString()).body())
                .at("/data/0/engine").asText().equals("sglang"));
    }

    @Test
    @Order(2)
    void whatTheEngineModeRefusesIsNamed() throws Exception {
        assertProblem(post("v1/completions", "{\"prompt\": [4], \"policy_version\": 7}"), 404, "policy version 7 is not loaded in the engine (loaded: [0])");
        assertProblem(post("v1/completions", "{\"prompt\": [4], \"stream\": true}"), 400, "stream: completions from the external engine are answered whole");
        assertProblem(post("v1/completions", "{\"prompt\": \"w4 w9\"}"), 400, "prompt: the external engine is sent token ids");
        assertProblem(post("v1/chat/completions", "{\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}"), 501,
                "ask the engine's own /v1/chat/completions");
    }

    @ConfigProperty(name = "mp.messaging.incoming.checkpoints-published.topic")
    String checkpointsTopic;

    /** A checkpoint written for the engine alone (trainer.export-onnx=false): no graph, found by its manifest, loaded into the engine. */
    @Test
    @Order(3)
    void aCheckpointWithoutAnOnnxGraphGoesToTheEngineByItsManifest() throws Exception {
        Path root = V0.getParent();
        var c = HfConfig.read(root.resolve("model"));
        var weights = TinyModels.randomWeights(c, 22);
        Path v1 = root.resolve("v1");
        Checkpoint.saveHf(v1, c, root.resolve("model"), weights, null, DType.F32, 1, 10, Map.of(), 0, false);
        assertTrue(!Files.exists(v1.resolve(Checkpoint.ONNX)) && Files.isRegularFile(v1.resolve("model.safetensors")));
        Path manifest = v1.resolve("manifest.json");
        var event = new CheckpointPublished(1, 10, null,
                new ArtifactRef(manifest.toUri().toString(), Checkpoint.sha256(manifest), Files.size(manifest)), null, Map.of());
        try (var producer = new KafkaProducer<String, byte[]>(TestStack.producerProperties())) {
            var env = Envelope.of(event);
            producer.send(new ProducerRecord<>(checkpointsTopic, env.key(),
                    EventCodec.encode(env))).get(30, TimeUnit.SECONDS);
        }
        Waits.until("the engine told to load v1", Duration.ofSeconds(60), () -> ENGINE.calls().contains("update_weights_from_disk v1"));
        var r = post("v1/completions", "{\"prompt\": [4, 9, 2], \"max_tokens\": 6, \"temperature\": 0}");
        assertEquals(1, M.readTree(r.body()).get("policy_version").asLong(), r.body());
    }

    private static void assertProblem(HttpResponse<String> r, int status, String detail) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        assertTrue(M.readTree(r.body()).get("detail").asText().contains(detail), r.body());
    }
}
