package ai.openalice.rl.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The HTTP policy against a local stand-in speaking vLLM's answer format (token ids as token_id:N). */
class OpenAiPolicyTest {

    private static HttpServer server(int status, String answer, AtomicReference<String> seen) throws Exception {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        s.createContext("/v1/completions", ex -> {
            seen.set(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] b = answer.getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(status, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        s.start();
        return s;
    }

    @Test
    void sendsTokenIdsAndReadsVllmStyleTokenIdsAndLogprobs() throws Exception {
        var seen = new AtomicReference<String>();
        String answer = "{\"choices\":[{\"text\":\"ab\",\"finish_reason\":\"stop\",\"logprobs\":{\"tokens\":[\"token_id:97\",\"token_id:98\"],"
                + "\"token_logprobs\":[-0.5,-1.25]}}]}";
        HttpServer s = server(200, answer, seen);
        try {
            var p = new OpenAiPolicy(URI.create("http://127.0.0.1:" + s.getAddress().getPort()), "qwen", 7, Duration.ofSeconds(10));
            var c = p.complete(new CompletionRequest(new int[] {1, 2, 3}, 5, 0.7, 0.9, 11L, List.of("\n"), null));
            assertArrayEquals(new int[] {97, 98}, c.tokens());
            assertArrayEquals(new double[] {-0.5, -1.25}, c.logprobs());
            assertEquals(7, c.policyVersion());
            assertEquals(Completion.FinishReason.STOP, c.finish());
            var sent = new ObjectMapper().readTree(seen.get());
            assertEquals("[1,2,3]", sent.get("prompt").toString());
            assertEquals(0.7, sent.get("temperature").asDouble());
            assertEquals(11, sent.get("seed").asLong());
            assertTrue(sent.get("return_tokens_as_token_ids").asBoolean());
        } finally {
            s.stop(0);
        }
    }

    @Test
    void serverErrorsAndMissingTokenIdsArePolicyExceptions() throws Exception {
        var seen = new AtomicReference<String>();
        HttpServer down = server(503, "{\"detail\":\"busy\"}", seen);
        HttpServer textOnly = server(200, "{\"choices\":[{\"text\":\"a\",\"logprobs\":{\"tokens\":[\"a\"],\"token_logprobs\":[-1]}}]}", seen);
        try {
            var req = CompletionRequest.greedy(new int[] {1}, 1);
            var e = assertThrows(PolicyException.class, () -> new OpenAiPolicy(URI.create("http://127.0.0.1:" + down.getAddress().getPort()),
                    null, 0, Duration.ofSeconds(5)).complete(req));
            assertEquals("policy server answered 503: {\"detail\":\"busy\"}", e.getMessage());
            var t = assertThrows(PolicyException.class, () -> new OpenAiPolicy(URI.create("http://127.0.0.1:" + textOnly.getAddress().getPort()),
                    null, 0, Duration.ofSeconds(5)).complete(req));
            assertTrue(t.getMessage().contains("not token_id:N"), t.getMessage());
            var gone = assertThrows(PolicyException.class, () -> new OpenAiPolicy(URI.create("http://127.0.0.1:1"), null, 0,
                    Duration.ofSeconds(5)).complete(req));
            assertTrue(gone.getMessage().startsWith("policy server http://127.0.0.1:1/v1/completions unreachable"), gone.getMessage());
        } finally {
            down.stop(0);
            textOnly.stop(0);
        }
    }

    /** A server that comes up while a request waits (a restart) is answered within the grace; without one, at once unreachable. */
    @Test
    void aShortOutageIsWaitedOutWithinTheGrace() throws Exception {
        int port;
        try (var probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        var seen = new AtomicReference<String>();
        String answer = "{\"choices\":[{\"text\":\"a\",\"finish_reason\":\"length\",\"logprobs\":{\"tokens\":[\"token_id:7\"],\"token_logprobs\":[-0.5]}}],"
                + "\"policy_version\":3}";
        var later = new AtomicReference<HttpServer>();
        Thread starter = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(1500);
                HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
                s.createContext("/v1/completions", x -> {
                    seen.set(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                    byte[] b = answer.getBytes(StandardCharsets.UTF_8);
                    x.sendResponseHeaders(200, b.length);
                    x.getResponseBody().write(b);
                    x.close();
                });
                s.start();
                later.set(s);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        var req = CompletionRequest.greedy(new int[] {1}, 1);
        try {
            var c = new OpenAiPolicy(URI.create("http://127.0.0.1:" + port), null, -1, Duration.ofSeconds(5), Duration.ofSeconds(20)).complete(req);
            assertEquals(7, c.tokens()[0]);
            assertEquals(3, c.policyVersion());
        } finally {
            starter.join();
            later.get().stop(0);
        }
        var gone = assertThrows(PolicyException.class, () -> new OpenAiPolicy(URI.create("http://127.0.0.1:" + port), null, -1,
                Duration.ofSeconds(5), Duration.ofSeconds(1)).complete(req));
        assertTrue(gone.getMessage().contains("unreachable (still, after waiting 1 s)"), gone.getMessage());
    }
}
