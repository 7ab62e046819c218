package ai.openalice.rl.inference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.ArtifactRef;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.OpenAiPolicy;
import ai.openalice.rl.policy.OrtPolicy;
import ai.openalice.rl.testkit.FuzzDoor;
import ai.openalice.rl.testkit.Mutations;
import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Waits;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * The inference service: completions with tokens, log-probs and the version that produced them;
 * a checkpoint swapped in through Kafka while requests stream, with no failed request and every
 * answer exactly what its named version produces; pins, refusals and bad requests.
 */
@QuarkusTest
@QuarkusTestResource(value = Checkpoints.class, restrictToAnnotatedClass = true) // not HfServingTest: PyTorch loads once per JVM
class InferenceServiceTest {
    static final ObjectMapper M = new ObjectMapper();
    static final String PROMPT = "def add(a, b):\n    return";

    @TestHTTPResource("/")
    URL base;

    @ConfigProperty(name = "mp.messaging.incoming.checkpoints-published.topic")
    String checkpointsTopic;

    final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> post(String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + "v1/completions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode models() throws Exception {
        return M.readTree(http.send(HttpRequest.newBuilder(URI.create(base + "v1/models")).build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    private static String greedy(Long pin) throws Exception {
        var body = new LinkedHashMap<String, Object>(Map.of("prompt", PROMPT, "max_tokens", 8, "temperature", 0, "logprobs", 1));
        if (pin != null) {
            body.put("policy_version", pin);
        }
        return M.writeValueAsString(body);
    }

    /** What a version answers, computed independently with the in-process policy on its checkpoint. */
    private static int[] expected(long version) {
        try (var p = new OrtPolicy(Checkpoints.dir(version))) {
            return p.complete(CompletionRequest.greedy(new ByteTokenizer().encode(PROMPT), 8)).tokens();
        }
    }

    private static int[] tokens(JsonNode choice) {
        int[] t = new int[choice.get("tokens").size()];
        for (int i = 0; i < t.length; i++) {
            t[i] = choice.get("tokens").get(i).asInt();
        }
        return t;
    }

    private void publish(long version, String sha) throws Exception {
        Path onnx = Checkpoints.dir(version).resolve(Checkpoint.ONNX);
        Path manifest = Checkpoints.dir(version).resolve("manifest.json");
        var event = new CheckpointPublished(version, version * 10, new ArrayRef(onnx, sha).ref(),
                new ArrayRef(manifest, Checkpoint.sha256(manifest)).ref(), null, Map.of());
        try (var producer = new KafkaProducer<String, byte[]>(TestStack.producerProperties())) {
            var env = Envelope.of(event);
            producer.send(new ProducerRecord<>(checkpointsTopic, env.key(), EventCodec.encode(env))).get(30, TimeUnit.SECONDS);
        }
    }

    private record ArrayRef(Path file, String sha) {
        ArtifactRef ref() throws IOException {
            return new ArtifactRef(file.toUri().toString(), sha, Files.size(file));
        }
    }

    @Test
    void swapsUnderLoadWithoutAFailedRequestAndEveryAnswerNamesItsVersion() throws Exception {
        int[] v1 = expected(1);
        int[] v2 = expected(2);
        assertFalse(Arrays.equals(v1, v2), "the two versions must answer differently for the test to mean anything");
        assertEquals(1, models().get("data").get(0).get("policy_version").asLong());

        var answers = Collections.synchronizedList(new ArrayList<long[]>()); // {status, version, matches}
        var stop = new AtomicBoolean();
        var clients = new ArrayList<Thread>();
        for (int c = 0; c < 4; c++) {
            clients.add(Thread.ofPlatform().start(() -> {
                while (!stop.get()) {
                    try {
                        var r = post(greedy(null));
                        long version = -1;
                        boolean match = false;
                        if (r.statusCode() == 200) {
                            JsonNode j = M.readTree(r.body());
                            version = j.get("policy_version").asLong();
                            match = Arrays.equals(tokens(j.get("choices").get(0)), version == 1 ? v1 : version == 2 ? v2 : null);
                        }
                        answers.add(new long[] {r.statusCode(), version, match ? 1 : 0});
                    } catch (Exception e) {
                        answers.add(new long[] {-1, -1, 0});
                    }
                }
            }));
        }
        Thread.sleep(500);
        publish(2, Checkpoint.sha256(Checkpoints.dir(2).resolve(Checkpoint.ONNX)));
        Waits.until("v2 served", Duration.ofSeconds(60), () -> currentIs(2));
        Thread.sleep(500);
        stop.set(true);
        for (Thread t : clients) {
            t.join();
        }
        assertTrue(currentIs(2), "v2 is served");
        List<long[]> all = new ArrayList<>(answers);
        assertTrue(all.size() > 8, "requests streamed: " + all.size());
        assertTrue(all.stream().allMatch(a -> a[0] == 200), "no failed request");
        assertTrue(all.stream().allMatch(a -> a[2] == 1), "every answer is exactly what its named version produces");
        assertTrue(all.stream().anyMatch(a -> a[1] == 1) && all.stream().anyMatch(a -> a[1] == 2), "both versions answered");
        int firstV2 = -1;
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i)[1] == 2 && firstV2 < 0) {
                firstV2 = i;
            }
        }
        assertTrue(all.subList(firstV2, all.size()).stream().filter(a -> a[1] == 1).count() <= 4,
                "after the swap, only requests already in flight (one per client) finish on v1");

        // A pinned request is served by the older version, still loaded.
        JsonNode pinned = M.readTree(post(greedy(1L)).body());
        assertEquals(1, pinned.get("policy_version").asLong());
        assertArrayEquals(v1, tokens(pinned.get("choices").get(0)));
        JsonNode lp = pinned.get("choices").get(0).get("logprobs");
        assertEquals(8, lp.get("token_logprobs").size());
        assertTrue(lp.get("token_logprobs").get(0).asDouble() <= 0);

        // A corrupt checkpoint is refused; v2 keeps serving.
        publish(3, Checkpoint.sha256(Checkpoints.dir(3).resolve(Checkpoint.ONNX)));
        Thread.sleep(1500);
        assertTrue(currentIs(2));
    }

    private boolean currentIs(long v) throws Exception {
        for (JsonNode m : models().get("data")) {
            if (m.get("current").asBoolean()) {
                return m.get("policy_version").asLong() == v;
            }
        }
        return false;
    }

    @Test
    void theHttpPolicyGetsTokensLogprobsAndTheVersion() throws Exception {
        var policy = new OpenAiPolicy(base.toURI(), null, -1, Duration.ofSeconds(30));
        var c = policy.complete(CompletionRequest.greedy(new ByteTokenizer().encode(PROMPT), 8));
        assertTrue(c.policyVersion() == 1 || c.policyVersion() == 2, "version " + c.policyVersion());
        assertArrayEquals(expected(c.policyVersion()), c.tokens());
        assertEquals(8, c.logprobs().length);
    }

    private double promptTokensFromCache() throws Exception {
        String text = http.send(HttpRequest.newBuilder(URI.create(base + "q/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        var m = Pattern.compile("(?m)^inference_prompt_tokens_total\\{[^}]*source=\"prefix_cache\"[^}]*} (\\S+)$").matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    @Test
    void anAgentsNextTurnComputesOnlyWhatIsNew() throws Exception {
        var t = new ByteTokenizer();
        JsonNode answer = M.readTree(post(greedy(null)).body());
        JsonNode first = answer.get("choices").get(0);
        long version = answer.get("policy_version").asLong();
        int[] completion = tokens(first);
        assertEquals(8, completion.length);
        int[] prompt = t.encode(PROMPT);
        int[] next = IntStream.concat(IntStream.concat(Arrays.stream(prompt),
                Arrays.stream(completion)), Arrays.stream(t.encode("\nok"))).toArray();
        double before = promptTokensFromCache();
        var body = M.readTree(post(M.writeValueAsString(Map.of("prompt", next, "max_tokens", 8, "temperature", 0, "policy_version", version))).body());
        // The first turn's cache covers its prompt and the 7 completion tokens fed back (the 8th ended it unfed).
        assertEquals(prompt.length + 7, promptTokensFromCache() - before, 0.0);
        try (var p = new OrtPolicy(Checkpoints.dir(version))) {
            assertArrayEquals(p.complete(CompletionRequest.greedy(next, 8)).tokens(), tokens(body.get("choices").get(0)),
                    "the same answer as computing the whole prompt");
        }
    }

    @Test
    void badRequestsAreProblemsNamingTheCause() throws Exception {
        var noPrompt = post("{\"max_tokens\": 4}");
        assertEquals(400, noPrompt.statusCode());
        assertEquals("application/problem+json", noPrompt.headers().firstValue("Content-Type").orElse(""));
        assertEquals("prompt is required: a string or an array of token ids", M.readTree(noPrompt.body()).get("detail").asText());
        assertEquals("n must be in 1..16, got 0", M.readTree(post("{\"prompt\": \"x\", \"n\": 0}").body()).get("detail").asText());
        var outside = post("{\"prompt\": [1, 99999]}");
        assertEquals(400, outside.statusCode());
        assertEquals("prompt[1] = 99999 is outside the vocabulary (0..264)", M.readTree(outside.body()).get("detail").asText());
        var truncated = M.readTree(post("{\"prompt\": [1, 2").body());
        assertEquals(400, truncated.get("status").asInt());
        assertTrue(truncated.get("detail").asText().startsWith("prompt: Unexpected end-of-input"), truncated.toString()); // where it broke off
        var typed = M.readTree(post("{\"prompt\": \"x\", \"n\": \"two\"}").body());
        assertEquals("n", typed.get("field").asText(), typed.toString());
        assertTrue(typed.get("detail").asText().startsWith("n: "), typed.toString());
        var pin = post("{\"prompt\": \"x\", \"policy_version\": 42}");
        assertEquals(404, pin.statusCode());
        var n3 = M.readTree(post("{\"prompt\": \"x = \", \"n\": 3, \"max_tokens\": 5, \"seed\": 7}").body());
        assertEquals(3, n3.get("choices").size());
        assertNotEquals(n3.get("choices").get(0).get("tokens"), null);
    }

    /**
     * Generated bad bodies (seeded) at both completion doors: 200, a 400 naming the field, or a 404
     * for a version not served — a problem every time, never a 5xx. max_tokens is kept small in the
     * template so that the generated requests that are valid stay quick.
     */
    @Test
    void generatedBadBodiesAreProblemsNeverA5xx() {
        var completion = Mutations.parse("{\"prompt\": [1, 2, 3], \"max_tokens\": 2, \"temperature\": 0.5, \"n\": 1, \"stop\": [\"x\"], "
                + "\"logprobs\": 1}");
        var expected = Set.of(200, 400, 404);
        var wrong = FuzzDoor.send(URI.create(base + "v1/completions"), new Mutations(11L).of(completion, 150),
                expected);
        assertEquals(List.of(), wrong, String.join("\n", wrong));
        var chat = Mutations.parse("{\"messages\": [{\"role\": \"system\", \"content\": \"be brief\"}, "
                + "{\"role\": \"user\", \"content\": \"hi\"}], \"max_tokens\": 2, \"temperature\": 0.5}");
        wrong = FuzzDoor.send(URI.create(base + "v1/chat/completions"), new Mutations(12L).of(chat, 150),
                expected);
        assertEquals(List.of(), wrong, String.join("\n", wrong));
    }
}
