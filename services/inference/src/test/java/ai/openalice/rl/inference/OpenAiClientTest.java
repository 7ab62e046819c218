package ai.openalice.rl.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.inference.service.BatchScheduler;
import ai.openalice.rl.model.chat.CompactChat;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.OrtPolicy;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.errors.BadRequestException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.completions.CompletionCreateParams;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URL;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The service as users' code calls it: OpenAI's official Java client, completions and chat
 * completions, each plain and streamed. Every answer is compared with what the pinned version
 * produces in process on the same prompt — for chat, the messages laid out in the built-in model's
 * compact format, as the agent loop lays out its episodes.
 */
@QuarkusTest
@QuarkusTestResource(value = Checkpoints.class, restrictToAnnotatedClass = true)
class OpenAiClientTest {
    static final String PROMPT = "def add(a, b):\n    return";
    static final String SYSTEM = "You fix bugs.";
    static final String USER = "add(2, 3) returns -1";

    @TestHTTPResource("/")
    URL base;

    @Inject
    BatchScheduler scheduler;

    private OpenAIClient client() {
        return OpenAIOkHttpClient.builder().baseUrl(base + "v1").apiKey("unused").maxRetries(0).build();
    }

    private static Completion expected(int[] prompt) {
        try (var p = new OrtPolicy(Checkpoints.dir(1))) {
            var c = p.complete(CompletionRequest.greedy(prompt, 8));
            return new Completion(c.text(), c.tokens().length);
        }
    }

    private record Completion(String text, int tokens) {}

    private static CompletionCreateParams completion(boolean usage) {
        var b = CompletionCreateParams.builder().model("alice").prompt(PROMPT).maxTokens(8).temperature(0.0)
                .putAdditionalBodyProperty("policy_version", JsonValue.from(1));
        return usage ? b.streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build()).build() : b.build();
    }

    private static ChatCompletionCreateParams chat(boolean usage) {
        var b = ChatCompletionCreateParams.builder().model("alice").addSystemMessage(SYSTEM).addUserMessage(USER).maxCompletionTokens(8)
                .temperature(0.0).putAdditionalBodyProperty("policy_version", JsonValue.from(1));
        return usage ? b.streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build()).build() : b.build();
    }

    @Test
    void completionsPlainAndStreamed() {
        Completion want = expected(new ByteTokenizer().encode(PROMPT));
        OpenAIClient client = client();
        try {
            var plain = client.completions().create(completion(false));
            assertEquals(want.text(), plain.choices().getFirst().text());

            var text = new StringBuilder();
            var finishes = new ArrayList<String>();
            long[] usage = {-1};
            int[] chunks = {0};
            try (var stream = client.completions().createStreaming(completion(true))) {
                stream.stream().forEach(chunk -> {
                    chunks[0]++;
                    chunk.choices().forEach(c -> {
                        text.append(c.text());
                        c._finishReason().asKnown().ifPresent(f -> finishes.add(f.asString()));
                    });
                    chunk.usage().ifPresent(u -> usage[0] = u.completionTokens());
                });
            }
            assertTrue(chunks[0] >= 3, "the text, the finish and the usage arrive as chunks: " + chunks[0]);
            assertEquals(want.text(), text.toString());
            assertEquals(1, finishes.size(), finishes.toString());
            assertEquals(want.tokens(), usage[0], "the usage chunk counts the sampled tokens");
        } finally {
            client.close();
        }
    }

    @Test
    void chatCompletionsPlainAndStreamedInTheModelsOwnLayout() {
        int[] prompt = new CompactChat(new ByteTokenizer()).conversation(List.of(
                new AbstractMap.SimpleImmutableEntry<>("system", SYSTEM), new AbstractMap.SimpleImmutableEntry<>("user", USER)));
        Completion want = expected(prompt);
        OpenAIClient client = client();
        try {
            var plain = client.chat().completions().create(chat(false));
            assertEquals(want.text(), plain.choices().getFirst().message().content().orElseThrow());
            assertEquals(prompt.length, plain.usage().orElseThrow().promptTokens(), "the prompt is the compact layout, token for token");

            var text = new StringBuilder();
            var roles = new ArrayList<String>();
            long[] usage = {-1};
            try (var stream = client.chat().completions().createStreaming(chat(true))) {
                stream.stream().forEach(chunk -> {
                    chunk.choices().forEach(c -> {
                        c.delta().content().ifPresent(text::append);
                        c.delta().role().ifPresent(r -> roles.add(r.asString()));
                    });
                    chunk.usage().ifPresent(u -> usage[0] = u.completionTokens());
                });
            }
            assertEquals(want.text(), text.toString());
            assertEquals(List.of("assistant"), roles, "the role comes once, first");
            assertEquals(want.tokens(), usage[0]);
        } finally {
            client.close();
        }
    }

    /**
     * Streaming streams: a long greedy sample's first tokens reach the client while the service is
     * still decoding it, one chunk a token, and the chunks make the whole sample's text. Prints the
     * time to the first token against the whole sample's (for the record, not asserted).
     */
    @Test
    void aStreamSendsEachTokenAsItIsSampled() {
        int[] prompt = new ByteTokenizer().encode(PROMPT);
        int length = Checkpoints.CONFIG.contextLength() - prompt.length;
        String want;
        try (var p = new OrtPolicy(Checkpoints.dir(1))) {
            var c = p.complete(CompletionRequest.greedy(prompt, length));
            assertEquals(length, c.tokens().length, "v1's greedy sample runs to max_tokens (no end token): it takes a while to decode");
            want = c.text();
        }
        var params = CompletionCreateParams.builder().model("alice").prompt(PROMPT).maxTokens(length).temperature(0.0)
                .putAdditionalBodyProperty("policy_version", JsonValue.from(1)).build();
        var text = new StringBuilder();
        int[] chunks = {0};
        int[] decodingAtFirst = {-1};
        long[] first = {0};
        OpenAIClient client = client();
        client.completions().create(completion(false)); // the client's own start-up is not the service's latency
        long start = System.nanoTime();
        try (var stream = client.completions().createStreaming(params)) {
            stream.stream().forEach(chunk -> chunk.choices().forEach(c -> {
                if (!c.text().isEmpty() && chunks[0]++ == 0) {
                    first[0] = System.nanoTime();
                    decodingAtFirst[0] = scheduler.activeSequences();
                }
                text.append(c.text());
            }));
        } finally {
            client.close();
        }
        long whole = System.nanoTime() - start;
        assertEquals(want, text.toString(), "the chunks make the whole sample");
        assertEquals(1, decodingAtFirst[0], "the first token reached the client while its sample was still being decoded");
        assertTrue(chunks[0] >= length / 2, "about a chunk a token: " + chunks[0] + " chunks for " + length + " tokens");
        System.out.printf("streaming: %d tokens in %d chunks; first token after %.1f ms, the whole sample after %.1f ms%n", length, chunks[0],
                (first[0] - start) / 1e6, whole / 1e6);
    }

    @Test
    void aBadRequestIsAClear400ThroughTheClient() {
        OpenAIClient client = client();
        try {
            var e = assertThrows(BadRequestException.class, () -> client.completions().create(
                    CompletionCreateParams.builder().model("alice").prompt(PROMPT).maxTokens(0).build()));
            assertTrue(e.body().toString().contains("max_tokens must be >= 1, got 0"), e.body().toString());
            var chat = assertThrows(BadRequestException.class, () -> client.chat().completions().create(ChatCompletionCreateParams.builder()
                    .model("alice").addUserMessage(USER).putAdditionalBodyProperty("messages", JsonValue.from(List.of(Map.of("role", "robot",
                            "content", "hi")))).build()));
            assertTrue(chat.body().toString().contains("messages[0].role must be system, user, assistant or tool, got 'robot'"), chat.body().toString());
        } finally {
            client.close();
        }
    }
}
