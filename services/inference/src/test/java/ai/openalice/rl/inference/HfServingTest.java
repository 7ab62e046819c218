package ai.openalice.rl.inference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.OrtPolicy;
import ai.openalice.rl.testkit.ScratchDirs;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
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
import java.util.Map;
import org.junit.jupiter.api.Test;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.FunctionDefinition;
import com.openai.models.FunctionParameters;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionFunctionTool;
import java.util.List;

/**
 * The inference service serving a HuggingFace-family checkpoint (a tiny random Qwen2 with its own
 * word-level tokenizer.json): the same {@code /v1/completions} as for the built-in model, text
 * prompts through the checkpoint's tokenizer, the vocabulary bound from its config. After the
 * template's generation prompt {@code w3} the model is scripted to write a Hermes tool call (its
 * three added tokens, then {@code w2}, its end token), so the calls come back as {@code tool_calls}
 * — plain and streamed — through the official OpenAI Java SDK.
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
    /** Ids 32, 33, 34: a Hermes tool call as three added tokens. */
    static final String[] CALL = {"<tool_call>", "{\"name\": \"w5\", \"arguments\": {\"w6\": \"w7\"}}", "</tool_call>"};
    static final Path CHECKPOINT = write();

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("inference.checkpoint", CHECKPOINT.toString());
        }
    }

    static Path write() {
        try {
            Path root = ScratchDirs.create("inference-hf");
            var json = TinyModels.config("qwen2").put("vocab_size", 35);
            HfConfig c = HfConfig.of(json, "qwen2");
            var weights = TinyModels.scripted(c, 12, 3, 32, 33, 34, 2);
            Path source = TinyModels.write(root.resolve("model"), json, weights, DType.F32, 1);
            var tokenizer = TinyModels.tokenizer(32);
            for (int i = 0; i < CALL.length; i++) {
                ((ArrayNode) tokenizer.get("added_tokens")).addObject().put("id", 32 + i).put("content", CALL[i])
                        .put("single_word", false).put("lstrip", false).put("rstrip", false).put("normalized", false).put("special", false);
            }
            M.writeValue(source.resolve("tokenizer.json").toFile(), tokenizer);
            M.writeValue(source.resolve("tokenizer_config.json").toFile(), M.createObjectNode().put("chat_template", TEMPLATE));
            Checkpoint.saveHf(root.resolve("v7"), c, source, weights, null, DType.F32, 7, 70, Map.of(), 0);
            return root.resolve("v7");
        } catch (IOException e) {
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
        var outside = post("{\"prompt\": [1, 35]}");
        assertEquals(400, outside.statusCode());
        assertEquals("prompt[1] = 35 is outside the vocabulary (0..34)", M.readTree(outside.body()).get("detail").asText());
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
        assertArrayEquals(new int[] {32, 33, 34, 2}, got, "the scripted call after the generation prompt w3, then the end token");
        JsonNode call = j.at("/choices/0/message/tool_calls/0");
        assertEquals("w5", call.at("/function/name").asText(), j.toString());
        assertEquals(M.readTree("{\"w6\": \"w7\"}"), M.readTree(call.at("/function/arguments").asText()));
        assertEquals("tool_calls", j.at("/choices/0/finish_reason").asText());

        var refused = http.send(HttpRequest.newBuilder(URI.create(base + "v1/chat/completions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"messages\": [{\"role\": \"system\", \"content\": \"w4\"}]}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, refused.statusCode(), refused.body());
        assertEquals("messages: the chat template of policy version 7 cannot render them: line 1: the template raised: the first message must come from the user",
                M.readTree(refused.body()).get("detail").asText());
    }

    /** The calls the model writes, as the official OpenAI SDK reads them: a plain answer, and a streamed one put together by the SDK's accumulator. */
    @Test
    void toolCallsPlainAndStreamedThroughTheOpenAiSdk() {
        var tool = ChatCompletionFunctionTool.builder().function(FunctionDefinition.builder().name("w5")
                .parameters(FunctionParameters.builder().putAdditionalProperty("type", JsonValue.from("object")).build()).build()).build();
        var params = ChatCompletionCreateParams.builder().model("alice").addUserMessage("w4 w9").addTool(tool).maxCompletionTokens(6).temperature(0.0)
                .build();
        OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(base + "v1").apiKey("unused").maxRetries(0).build();
        try {
            var plain = client.chat().completions().create(params);
            var streamed = ChatCompletionAccumulator.create();
            int[] chunks = {0};
            try (var stream = client.chat().completions().createStreaming(params)) {
                stream.stream().forEach(c -> {
                    chunks[0]++;
                    streamed.accumulate(c);
                });
            }
            assertTrue(chunks[0] >= 4, "role, the call's name, its arguments, the finish: " + chunks[0]);
            for (var answer : List.of(plain, streamed.chatCompletion())) {
                var choice = answer.choices().getFirst();
                assertEquals("tool_calls", choice.finishReason().asString());
                assertTrue(choice.message().content().orElse("").isEmpty(), "no text before the call: " + choice.message().content());
                var calls = choice.message().toolCalls().orElseThrow();
                assertEquals(1, calls.size());
                var f = calls.getFirst().asFunction();
                assertTrue(f.id().startsWith("call_"), f.id());
                assertEquals("w5", f.function().name());
                assertEquals("{\"w6\":\"w7\"}", f.function().arguments());
            }
        } finally {
            client.close();
        }
    }
}
