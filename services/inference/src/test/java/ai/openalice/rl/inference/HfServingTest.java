package ai.openalice.rl.inference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.OrtPolicy;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The inference service serving a HuggingFace-family checkpoint (a tiny random Qwen2 with its own
 * word-level tokenizer.json): the same {@code /v1/completions} as for the built-in model, text
 * prompts through the checkpoint's tokenizer, the vocabulary bound from its config.
 */
@QuarkusTest
@TestProfile(HfServingTest.Profile.class)
class HfServingTest {
    static final ObjectMapper M = new ObjectMapper();
    /** Words of the tiny vocabulary only: the user's text, each tool's name, then "w3" as the generation prompt. */
    static final String TEMPLATE = """
            {%- if messages[0].role != 'user' %}{{ raise_exception('the first message must come from the user') }}{% endif %}
            {%- for m in messages %}{{ m.content }} {% endfor %}
            {%- if tools %}{% for t in tools %}{{ t.function.name }} {% endfor %}{% endif %}
            {%- if add_generation_prompt %}w3{% endif %}""";
    static final Path CHECKPOINT = write();

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("inference.checkpoint", CHECKPOINT.toString());
        }
    }

    static Path write() {
        try {
            Path root = Files.createTempDirectory("inference-hf");
            var json = TinyModels.config("qwen2").put("vocab_size", 32);
            HfConfig c = HfConfig.of(json, "qwen2");
            var weights = TinyModels.randomWeights(c, 12);
            Path source = TinyModels.write(root.resolve("model"), json, weights, DType.F32, 1);
            M.writeValue(source.resolve("tokenizer_config.json").toFile(), M.createObjectNode().put("chat_template", TEMPLATE));
            Checkpoint.saveHf(root.resolve("v7"), c, source, weights, null, DType.F32, 7, 70, Map.of(), 0);
            return root.resolve("v7");
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @TestHTTPResource("/")
    URL base;

    final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> post(String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + "v1/completions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesTheCheckpointWithItsOwnTokenizer() throws Exception {
        var r = post("{\"prompt\": \"w4 w9 w2\", \"max_tokens\": 6, \"temperature\": 0, \"logprobs\": 1}");
        assertEquals(200, r.statusCode(), r.body());
        JsonNode j = M.readTree(r.body());
        assertEquals(7, j.get("policy_version").asLong());
        JsonNode tokens = j.get("choices").get(0).get("tokens");
        int[] got = new int[tokens.size()];
        for (int i = 0; i < got.length; i++) {
            got[i] = tokens.get(i).asInt();
        }
        try (var p = new OrtPolicy(CHECKPOINT)) {
            assertArrayEquals(p.complete(CompletionRequest.greedy(new int[] {4, 9, 2}, 6)).tokens(), got);
        }
        var outside = post("{\"prompt\": [1, 32]}");
        assertEquals(400, outside.statusCode());
        assertEquals("prompt[1] = 32 is outside the vocabulary (0..31)", M.readTree(outside.body()).get("detail").asText());
    }

    @Test
    void chatCompletionsRenderTheCheckpointsOwnTemplateWithTools() throws Exception {
        var r = http.send(HttpRequest.newBuilder(URI.create(base + "v1/chat/completions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"messages\": [{\"role\": \"user\", \"content\": \"w4 w9\"}], \"max_tokens\": 5,"
                        + " \"temperature\": 0, \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"w5\", \"parameters\": {}}}]}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        JsonNode j = M.readTree(r.body());
        assertEquals(4, j.get("usage").get("prompt_tokens").asInt(), "'w4 w9 w5 w3': the messages, the tool's name, the generation prompt");
        JsonNode tokens = j.get("choices").get(0).get("tokens");
        int[] got = new int[tokens.size()];
        for (int i = 0; i < got.length; i++) {
            got[i] = tokens.get(i).asInt();
        }
        try (var p = new OrtPolicy(CHECKPOINT)) {
            assertArrayEquals(p.complete(CompletionRequest.greedy(new int[] {4, 9, 5, 3}, 5)).tokens(), got);
        }

        var refused = http.send(HttpRequest.newBuilder(URI.create(base + "v1/chat/completions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"messages\": [{\"role\": \"system\", \"content\": \"w4\"}]}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, refused.statusCode(), refused.body());
        assertEquals("messages: the chat template of policy version 7 cannot render them: line 1: the template raised: the first message must come from the user",
                M.readTree(refused.body()).get("detail").asText());
    }
}
