package ai.openalice.rl.tinker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.retry.Backoff;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What a status means to the client, on the JDK's own HTTP server answering as told. */
class TinkerHttpTest {
    private final List<String> heard = new ArrayList<>();
    private final TinkerClient.Listener listener = new TinkerClient.Listener() {
        @Override
        public void engineAway(String reason) {
            heard.add("away " + reason);
        }

        @Override
        public void engineBack() {
            heard.add("back");
        }
    };
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private URI serve(int... statuses) throws IOException {
        var calls = new AtomicInteger();
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            int i = calls.getAndIncrement();
            int status = statuses[Math.min(i, statuses.length - 1)];
            byte[] body = (status == 200 ? "{\"status\":\"ok\",\"call\":" + i + "}" : "{\"detail\":\"status " + status + "\"}").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private TinkerHttp http(URI base) {
        return new TinkerHttp(base, "key", listener, () -> Backoff.withoutJitter(Duration.ofMillis(1), Duration.ofMillis(2)), null);
    }

    @Test
    void anEngineAnswering5xxIsWaitedOutAndTheAnswerThatComesIsTheResult() throws IOException {
        var r = http(serve(503, 502, 200)).postJson("/api/v1/optim_step", Map.of("model_id", "m"));
        assertEquals(2, r.path("call").asInt(), "the third call answered");
        assertEquals(List.of("away /api/v1/optim_step answered 503: status 503", "away /api/v1/optim_step answered 502: status 502", "back"), heard);
    }

    @Test
    void anUnexplained500IsTriedABoundedNumberOfTimesThenRefused() throws IOException {
        // SkyRL answers a failed future whose error it cannot read with 500 "Unknown error", the same at every retrieve
        var e = assertThrows(TinkerRejectedException.class, () -> http(serve(500)).postJson("/api/v1/retrieve_future", Map.of()));
        assertEquals(500, e.status());
        assertEquals("/api/v1/retrieve_future failed 10 times in a row with 500, which the engine does not explain: status 500", e.getMessage());
        assertEquals(10, heard.size(), "nine waits, then the listener hears the engine answers again: " + heard);
        assertEquals("away /api/v1/retrieve_future answered 500 (try 1 of 10): status 500", heard.get(0));
        assertEquals("back", heard.get(9));
    }

    @Test
    void anUnexplained500ThatClearsGivesTheAnswer() throws IOException {
        var r = http(serve(500, 500, 429, 200)).postJson("/api/v1/optim_step", Map.of());
        assertEquals(3, r.path("call").asInt());
        assertEquals(List.of("away /api/v1/optim_step answered 500 (try 1 of 10): status 500", "away /api/v1/optim_step answered 500 (try 2 of 10): status 500",
                "away /api/v1/optim_step answered 429: status 429", "back"), heard);
    }

    @Test
    void whatAStatusMeansFollowsTheTinkerSdksRetryRulesWithSkyRlsRefusals() {
        // the SDK retries 408, 409, 429 and every 5xx, and obeys x-should-retry; 409 is SkyRL's refusal of a reused sequence
        // number or of a model not loaded, which no retry mends
        assertEquals(TinkerHttp.Meaning.ANSWER, TinkerHttp.classify(200, null));
        assertEquals(TinkerHttp.Meaning.ANSWER, TinkerHttp.classify(408, null));
        assertEquals(TinkerHttp.Meaning.AWAY, TinkerHttp.classify(429, null));
        assertEquals(TinkerHttp.Meaning.AWAY, TinkerHttp.classify(503, null));
        assertEquals(TinkerHttp.Meaning.AWAY, TinkerHttp.classify(502, null));
        assertEquals(TinkerHttp.Meaning.AWAY, TinkerHttp.classify(504, null));
        assertEquals(TinkerHttp.Meaning.UNEXPLAINED, TinkerHttp.classify(500, null));
        assertEquals(TinkerHttp.Meaning.REFUSED, TinkerHttp.classify(400, null));
        assertEquals(TinkerHttp.Meaning.REFUSED, TinkerHttp.classify(409, null));
        assertEquals(TinkerHttp.Meaning.REFUSED, TinkerHttp.classify(503, "false"));
        assertEquals(TinkerHttp.Meaning.AWAY, TinkerHttp.classify(500, "true"));
        assertEquals(TinkerHttp.Meaning.UNEXPLAINED, TinkerHttp.classify(409, "true"));
    }

    @Test
    void aRefusalIsNotRetriedAndNamesWhatWasRefused() throws IOException {
        var e = assertThrows(TinkerRejectedException.class, () -> http(serve(404, 200)).postJson("/api/v1/session_heartbeat", Map.of()));
        assertEquals(404, e.status());
        assertEquals("/api/v1/session_heartbeat refused (404): status 404", e.getMessage());
        assertTrue(heard.isEmpty(), heard.toString());
    }

    @Test
    void anEngineNotListeningIsWaitedForUntilTheCallerGivesUp() throws IOException {
        int port;
        try (var s = new ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        Thread caller = Thread.currentThread();
        var counting = new TinkerClient.Listener() {
            int aways;

            @Override
            public void engineAway(String reason) {
                heard.add(reason);
                if (++aways == 3) {
                    caller.interrupt();
                }
            }

            @Override
            public void engineBack() {}
        };
        var h = new TinkerHttp(URI.create("http://127.0.0.1:" + port), null, counting, () -> Backoff.withoutJitter(Duration.ofMillis(1), Duration.ofMillis(2)),
                null);
        var e = assertThrows(IllegalStateException.class, () -> h.postJson("/api/v1/create_session", Map.of()));
        assertTrue(e.getMessage().startsWith("interrupted while waiting for the Tinker engine"), e.getMessage());
        assertEquals(3, heard.size(), heard.toString());
        assertTrue(heard.get(0).startsWith("/api/v1/create_session: ConnectException"), heard.get(0));
        Thread.interrupted();
    }

    @Test
    void aClientWithAnOutageGraceStopsWaitingAfterIt() throws IOException {
        var h = new TinkerHttp(serve(503), null, listener, () -> Backoff.withoutJitter(Duration.ofMillis(20), Duration.ofMillis(20)),
                Duration.ofMillis(100));
        var e = assertThrows(TinkerUnavailableException.class, () -> h.postJson("/api/v1/asample", Map.of()));
        assertTrue(e.getMessage().contains("still away after 0 s: /api/v1/asample answered 503"), e.getMessage());
        // the server answers 503 for ever: only the grace ends the wait (20 ms pauses over 100 ms: a handful of calls)
        assertTrue(heard.size() >= 2 && heard.stream().noneMatch("back"::equals), heard.toString());
    }

    @Test
    void fastApisValidationErrorsNameTheFieldWithoutTheBody() {
        byte[] body = """
                {"detail":[{"type":"greater_than","loc":["body","lora_config","rank"],"msg":"Input should be greater than 0"},
                           {"type":"missing","loc":["body"],"msg":"Field required"}]}""".getBytes(StandardCharsets.UTF_8);
        assertEquals("lora_config.rank: Input should be greater than 0; the body: Field required", TinkerHttp.detail(body));
        assertEquals("Model not found", TinkerHttp.detail("{\"detail\":\"Model not found\"}".getBytes(StandardCharsets.UTF_8)));
        assertEquals("Internal Server Error", TinkerHttp.detail("Internal Server Error".getBytes(StandardCharsets.UTF_8)));
    }
}
