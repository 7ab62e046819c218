package ai.openalice.rl.agent.external;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The endpoint over real HTTP, and through the Unix socket a sandbox reaches it by. */
class AgentEndpointTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void setUp(@TempDir Path model) throws Exception {
        RecordingChatTest.setUp(model);
    }

    static HttpResponse<String> post(URI base, String key, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base.resolve(base.getPath() + "/chat/completions")).header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void anEpisodesCallsAreAnsweredAndRecordedAndOnlyItsKeyReachesThem() throws Exception {
        var policy = new RecordingChatTest.Scripted("ls", "done");
        var chat = new RecordingChat(RecordingChatTest.qwen3, RecordingChatTest.tok, Map.of(), policy);
        try (var endpoint = AgentEndpoint.start()) {
            String key = endpoint.open(new AgentEndpoint.Episode(chat, "policy", new RecordingChat.Sampling(32, 1.0, 1.0, null, null)));
            var first = post(endpoint.baseUri(), key, """
                    {"model": "policy", "messages": [{"role": "system", "content": "S"}, {"role": "user", "content": [{"type": "text", "text": "fix it"}]}],
                     "temperature": 0.7, "max_tokens": 100}""");
            assertEquals(200, first.statusCode(), first.body());
            JsonNode a = JSON.readTree(first.body());
            assertEquals("ls", a.at("/choices/0/message/content").asText());
            assertEquals("stop", a.at("/choices/0/finish_reason").asText());
            assertEquals(3, a.at("/usage/completion_tokens").asInt(), "l, s and <|im_end|>");
            assertEquals(List.of(1.0), policy.temperatures, "the run's temperature, not the program's 0.7");
            assertEquals(List.of(32), policy.maxTokens, "the program's max_tokens bounded by the run's");
            var second = post(endpoint.baseUri(), key, """
                    {"messages": [{"role": "system", "content": "S"}, {"role": "user", "content": "fix it"},
                                  {"role": "assistant", "content": "ls"}, {"role": "user", "content": "a.py"}], "stream": true}""");
            assertEquals(200, second.statusCode(), second.body());
            assertTrue(second.body().startsWith("data: {") && second.body().endsWith("data: [DONE]\n\n"), second.body());
            JsonNode chunk = JSON.readTree(second.body().substring("data: ".length(), second.body().indexOf("\n\n")));
            assertEquals("done", chunk.at("/choices/0/delta/content").asText());
            assertEquals(2, chat.calls().size());
            assertEquals(1, chat.turns().extended());

            assertEquals(401, post(endpoint.baseUri(), "alice-not-a-key", "{}").statusCode());
            var bad = post(endpoint.baseUri(), key, "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"temperature\": 3}");
            assertEquals(400, bad.statusCode());
            assertEquals("temperature", JSON.readTree(bad.body()).at("/error/param").asText(), bad.body());
            assertEquals(400, post(endpoint.baseUri(), key, "{\"messages\": []}").statusCode());
            assertEquals(400, post(endpoint.baseUri(), key, "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"n\": 2}").statusCode());
            assertEquals(2, chat.calls().size(), "refused requests are not recorded");
            endpoint.close(key);
            assertEquals(401, post(endpoint.baseUri(), key, "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}").statusCode(),
                    "a closed episode's key is refused");
        }
    }

    @Test
    void toolCallsComeBackInOpenAIsShapeAndSentBackTheyContinueTheContext() throws Exception {
        var policy = new RecordingChatTest.Scripted("<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>", "done");
        var chat = new RecordingChat(RecordingChatTest.qwen3, RecordingChatTest.tok, Map.of(), policy);
        String tools = "[{\"type\": \"function\", \"function\": {\"name\": \"bash\", \"description\": \"run\", \"parameters\": {\"type\": \"object\","
                + " \"properties\": {\"command\": {\"type\": \"string\"}}}}}]";
        try (var endpoint = AgentEndpoint.start()) {
            String key = endpoint.open(new AgentEndpoint.Episode(chat, "policy", new RecordingChat.Sampling(64, 1.0, 1.0, null, null)));
            var first = post(endpoint.baseUri(), key, "{\"messages\": [{\"role\": \"system\", \"content\": \"S\"}, {\"role\": \"user\", \"content\": \"fix it\"}],"
                    + " \"tools\": " + tools + "}");
            assertEquals(200, first.statusCode(), first.body());
            JsonNode m = JSON.readTree(first.body()).at("/choices/0/message");
            assertEquals("tool_calls", JSON.readTree(first.body()).at("/choices/0/finish_reason").asText());
            assertTrue(m.get("content").isNull(), m.toString());
            assertEquals("bash", m.at("/tool_calls/0/function/name").asText());
            assertEquals(JSON.readTree("{\"command\": \"ls\"}"), JSON.readTree(m.at("/tool_calls/0/function/arguments").asText()));
            String id = m.at("/tool_calls/0/id").asText();
            // the program keeps the call with its arguments written again in its own spacing, then the tool's answer
            var second = post(endpoint.baseUri(), key, "{\"messages\": [{\"role\": \"system\", \"content\": \"S\"}, {\"role\": \"user\", \"content\": \"fix it\"},"
                    + " {\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{\"id\": \"" + id + "\", \"type\": \"function\", \"function\": {\"name\": \"bash\","
                    + " \"arguments\": \"{\\\"command\\\":\\\"ls\\\"}\"}}]}, {\"role\": \"tool\", \"tool_call_id\": \"" + id + "\", \"content\": \"a.py\"}],"
                    + " \"tools\": " + tools + "}");
            assertEquals(200, second.statusCode(), second.body());
            assertEquals("done", JSON.readTree(second.body()).at("/choices/0/message/content").asText());
            var calls = chat.calls();
            // Qwen3 writes a tool's answer as a user turn in <tool_response>; the answer's own <|im_end|> was sampled
            String after = "\n<|im_start|>user\n<tool_response>\na.py\n</tool_response><|im_end|>\n<|im_start|>assistant\n";
            int[] expected = IntStream.concat(IntStream.concat(Arrays.stream(calls.get(0).prompt()),
                    Arrays.stream(calls.get(0).completion())), Arrays.stream(RecordingChatTest.tok.encode(after))).toArray();
            assertArrayEquals(expected, calls.get(1).prompt());
            assertEquals(1, chat.turns().extended());
        }
    }

    @Test
    void theUnixSocketCarriesAConnectionToTheEndpoint(@TempDir Path dir) throws Exception {
        var chat = new RecordingChat(RecordingChatTest.qwen3, RecordingChatTest.tok, Map.of(), new RecordingChatTest.Scripted("ls"));
        try (var endpoint = AgentEndpoint.start(); var bridge = SocketBridge.open(dir.resolve("policy.sock"), endpoint.port())) {
            String key = endpoint.open(new AgentEndpoint.Episode(chat, "policy", new RecordingChat.Sampling(32, 1.0, 1.0, null, null)));
            String body = "{\"messages\": [{\"role\": \"user\", \"content\": \"fix it\"}]}";
            String request = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key
                    + "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
            var response = new StringBuilder();
            try (var ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(bridge.socket()));
                ch.write(ByteBuffer.wrap(request.getBytes(StandardCharsets.UTF_8)));
                var buf = ByteBuffer.allocate(8192);
                while (ch.read(buf) >= 0) {
                    buf.flip();
                    response.append(StandardCharsets.UTF_8.decode(buf));
                    buf.clear();
                }
            }
            assertTrue(response.toString().startsWith("HTTP/1.1 200"), response.toString());
            assertEquals("ls", JSON.readTree(response.substring(response.indexOf("\r\n\r\n") + 4)).at("/choices/0/message/content").asText());
            assertArrayEquals(chat.calls().get(0).prompt(), RecordingChatTest.tok.encode(
                    "<|im_start|>user\nfix it<|im_end|>\n<|im_start|>assistant\n"));
        }
    }
}
