package ai.openalice.rl.inference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import ai.openalice.rl.testkit.PythonReference;
import ai.openalice.rl.testkit.ScratchDirs;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
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
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The inference service serving a real model, SmolLM2-135M-Instruct with its real weights (exported
 * as users export one, {@code model export}'s checkpoint): its greedy continuation equals
 * transformers' greedy {@code generate} token for token, and a chat completion asked with the
 * official OpenAI client renders the model's own template to transformers' ids and answers what
 * transformers answers.
 */
@QuarkusTest
@TestProfile(SmolLm2ServingTest.Profile.class)
class SmolLm2ServingTest {
    static final ObjectMapper M = new ObjectMapper();
    static final int LENGTH = 64;
    static final Path CHECKPOINT = export();

    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("inference.checkpoint", CHECKPOINT.toString());
        }
    }

    static Path export() {
        try {
            Path source = PythonReference.smolLm2();
            Path dir = ScratchDirs.create("smollm2").resolve("v3");
            HfModel m = HfModel.load(source);
            Checkpoint.saveHf(dir, m.config(), source, m.floats(), null, DType.F32, 3, 0, Map.of(), 0);
            return dir;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @TestHTTPResource("/")
    URL base;

    @Test
    void greedyContinuationEqualsTransformersGenerate() throws Exception {
        Path messages = Files.createTempFile("messages", ".json");
        Files.writeString(messages, "[{\"role\": \"user\", \"content\": \"Write a short story about a robot who learns to paint.\"}]");
        int[] prompt = PythonReference.ints(PythonReference.reference("chat", "--model", CHECKPOINT.toString(), "--messages", messages.toString()).get("ids"));
        String ids = Arrays.stream(prompt).mapToObj(Integer::toString).collect(Collectors.joining(","));
        int[] expected = PythonReference.ints(PythonReference.reference("generate", "--model", PythonReference.smolLm2().toString(), "--tokens", ids,
                "--max-new-tokens", Integer.toString(LENGTH)).get("tokens"));
        assertEquals(LENGTH, expected.length, "the story goes on past the budget, so all of it is compared");

        var r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "v1/completions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\": [" + ids + "], \"max_tokens\": " + LENGTH + ", \"temperature\": 0}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        JsonNode j = M.readTree(r.body());
        assertEquals(3, j.get("policy_version").asLong());
        int[] got = PythonReference.ints(j.at("/choices/0/tokens"));
        try (var tokenizer = HuggingFaceTokenizer.forModel(CHECKPOINT)) {
            System.out.println("[SmolLM2] greedy: " + tokenizer.decode(got).replace("\n", "\\n"));
            assertArrayEquals(expected, got, () -> "transformers: " + tokenizer.decode(expected) + "\nalice-rl:     " + tokenizer.decode(got));
        }
    }

    @Test
    void chatCompletionThroughTheOpenAiClientAnswersAsTransformers() throws Exception {
        String question = "What is the capital of France?";
        Path messages = Files.createTempFile("messages", ".json");
        Files.writeString(messages, M.writeValueAsString(M.createArrayNode().add(M.createObjectNode().put("role", "user").put("content", question))));
        int[] prompt = PythonReference.ints(PythonReference.reference("chat", "--model", CHECKPOINT.toString(), "--messages", messages.toString()).get("ids"));
        int[] expected = PythonReference.ints(PythonReference.reference("generate", "--model", PythonReference.smolLm2().toString(), "--tokens",
                Arrays.stream(prompt).mapToObj(Integer::toString).collect(Collectors.joining(",")), "--max-new-tokens", "32").get("tokens"));

        OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(base + "v1").apiKey("unused").maxRetries(0).build();
        try (var tokenizer = HuggingFaceTokenizer.forModel(CHECKPOINT)) {
            var answer = client.chat().completions().create(ChatCompletionCreateParams.builder().model("alice").addUserMessage(question)
                    .maxCompletionTokens(32).temperature(0.0).build());
            assertEquals(prompt.length, answer.usage().orElseThrow().promptTokens(), "the template rendered as transformers renders it");
            int end = expected.length > 0 && expected[expected.length - 1] == 2 ? expected.length - 1 : expected.length;
            String text = tokenizer.decode(Arrays.copyOf(expected, end));
            System.out.println("[SmolLM2] chat: " + question + " -> " + answer.choices().getFirst().message().content().orElse(""));
            assertEquals(text, answer.choices().getFirst().message().content().orElse(""));
            assertEquals(end < expected.length ? "stop" : "length", answer.choices().getFirst().finishReason().asString());
        } finally {
            client.close();
        }
    }
}
