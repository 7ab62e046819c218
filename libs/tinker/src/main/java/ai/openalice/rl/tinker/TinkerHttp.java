package ai.openalice.rl.tinker;

import ai.openalice.rl.retry.Backoff;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The HTTP side of the client: JSON and protobuf posts, the futures loop, and what a status means
 * ({@link #classify}). A 4xx (but 408 and 429) is a refusal naming what was refused
 * ({@link TinkerRejectedException}); a 502, 503 or 504, a 429, a refused or dropped connection or a
 * timeout is the engine being away, waited out with full jitter for as long as it takes (the
 * listener hears when it goes and comes back) — a training step is never given up for an engine
 * restarting. Any other 5xx is an error the engine did not explain (SkyRL answers a future that
 * failed without a readable error with 500 "Unknown error", and will answer it so for ever): tried
 * {@value #UNEXPLAINED_TRIES} times, as the Tinker SDK's default retries, then a refusal. A
 * {@code x-should-retry} header, which the Tinker SDK obeys, overrides the status. A client made
 * with an outage grace (a sampler in an episode, which has its own retry) stops waiting after it:
 * {@link TinkerUnavailableException}.
 */
final class TinkerHttp {
    static final String PROTO = "application/x-protobuf";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** SkyRL holds a retrieve_future for up to 300 s before answering 408. */
    private static final Duration FUTURE_WAIT = Duration.ofSeconds(330);
    private static final Duration CALL = Duration.ofSeconds(60);
    private static final Duration DOWNLOAD = Duration.ofMinutes(30);
    /** Tries of a request the engine fails with a 5xx it does not explain (the Tinker SDK's DEFAULT_MAX_RETRIES is 10). */
    static final int UNEXPLAINED_TRIES = 10;

    /** What an answer's status means to the caller. */
    enum Meaning {
        /** A result (or a 408: the futures loop asks again). */
        ANSWER,
        /** Refused: the same request cannot succeed. */
        REFUSED,
        /** The engine away or overloaded: waited out. */
        AWAY,
        /** An error the engine does not explain: tried a bounded number of times. */
        UNEXPLAINED
    }

    /** The meaning of status {@code status} with the answer's {@code x-should-retry} header (null: none). */
    static Meaning classify(int status, String shouldRetry) {
        if (status < 300 || status == 408) {
            return Meaning.ANSWER;
        }
        if ("true".equalsIgnoreCase(shouldRetry)) {
            return status >= 500 ? Meaning.AWAY : Meaning.UNEXPLAINED;
        }
        if ("false".equalsIgnoreCase(shouldRetry) || (status < 500 && status != 429)) {
            return Meaning.REFUSED;
        }
        return status == 429 || status == 502 || status == 503 || status == 504 ? Meaning.AWAY : Meaning.UNEXPLAINED;
    }

    private final URI base;
    private final String apiKey;
    private final TinkerClient.Listener listener;
    private final Supplier<Backoff> backoff;
    private final Duration grace;
    // HTTP/1.1: the JDK's default HTTP/2 upgrade of a cleartext POST reaches uvicorn (SkyRL's server) without its body.
    // Redirects followed: a checkpoint's archive is a 302 to its download.
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).followRedirects(HttpClient.Redirect.NORMAL)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** {@code grace}: how long an engine away is waited for; null: for as long as it takes. */
    TinkerHttp(URI base, String apiKey, TinkerClient.Listener listener, Supplier<Backoff> backoff, Duration grace) {
        this.base = base;
        this.apiKey = apiKey;
        this.listener = listener;
        this.backoff = backoff;
        this.grace = grace;
    }

    /** POSTs {@code body} as JSON and returns the JSON answer. */
    JsonNode postJson(String path, Object body) {
        return json(send(path, "application/json", bytes(body), "application/json", CALL));
    }

    /** POSTs a protobuf body and returns the JSON answer. */
    JsonNode postProto(String path, byte[] body) {
        return json(send(path, PROTO, body, "application/json", CALL));
    }

    /** GETs a JSON answer. */
    JsonNode get(String path) {
        return json(send(path, null, null, "application/json", CALL));
    }

    /** Waits for future {@code requestId} and returns its JSON result. */
    JsonNode futureJson(String requestId) {
        return json(future(requestId, "application/json"));
    }

    /** Waits for future {@code requestId} and returns its protobuf result. */
    byte[] futureProto(String requestId) {
        HttpResponse<byte[]> r = future(requestId, PROTO + ", application/json");
        if (!r.headers().firstValue("content-type").orElse("").startsWith(PROTO)) {
            throw new IllegalStateException("future " + requestId + " answered " + r.headers().firstValue("content-type").orElse("no content type")
                    + " where protobuf was asked for: " + text(r.body()));
        }
        return r.body();
    }

    private HttpResponse<byte[]> future(String requestId, String accept) {
        byte[] body = bytes(Map.of("request_id", requestId));
        while (true) {
            HttpResponse<byte[]> r = send("/api/v1/retrieve_future", "application/json", body, accept, FUTURE_WAIT);
            if (r.statusCode() != 408) {
                return r;
            }
        }
    }

    /** GETs {@code path} into {@code file} (streamed: a checkpoint may be large). */
    void download(String path, Path file) {
        send(path, request(path, null, null, "*/*", DOWNLOAD), HttpResponse.BodyHandlers.ofFile(file), f -> {
            try {
                return Files.readAllBytes(f);
            } catch (IOException e) {
                return new byte[0];
            }
        });
    }

    private HttpResponse<byte[]> send(String path, String contentType, byte[] body, String accept, Duration timeout) {
        return send(path, request(path, contentType, body, accept, timeout), HttpResponse.BodyHandlers.ofByteArray(), b -> b);
    }

    private HttpRequest request(String path, String contentType, byte[] body, String accept, Duration timeout) {
        var builder = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout).header("Accept", accept);
        if (apiKey != null) {
            builder.header("X-API-Key", apiKey);
        }
        return body == null ? builder.GET().build()
                : builder.header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    }

    /** One request, sent again while the engine is away; a refusal throws. 408 is returned (the futures loop asks again). */
    private <T> HttpResponse<T> send(String path, HttpRequest request, HttpResponse.BodyHandler<T> handler, Function<T, byte[]> errorBody) {
        Backoff pauses = null;
        long awaySince = 0;
        int unexplained = 0;
        while (true) {
            String away;
            try {
                HttpResponse<T> r = http.send(request, handler);
                int s = r.statusCode();
                Meaning meaning = classify(s, r.headers().firstValue("x-should-retry").orElse(null));
                if (meaning == Meaning.ANSWER) {
                    if (pauses != null) {
                        listener.engineBack();
                    }
                    return r;
                }
                String detail = detail(errorBody.apply(r.body()));
                if (meaning == Meaning.REFUSED) {
                    if (pauses != null) {
                        listener.engineBack();
                    }
                    String message = path + " refused (" + s + "): " + detail;
                    throw TinkerModelLostException.says(detail) ? new TinkerModelLostException(s, message) : new TinkerRejectedException(s, message);
                }
                if (meaning == Meaning.UNEXPLAINED && ++unexplained >= UNEXPLAINED_TRIES) {
                    if (pauses != null) {
                        listener.engineBack();
                    }
                    throw new TinkerRejectedException(s, path + " failed " + unexplained + " times in a row with " + s + ", which the engine"
                            + " does not explain: " + detail);
                }
                away = path + " answered " + s + (meaning == Meaning.UNEXPLAINED ? " (try " + unexplained + " of " + UNEXPLAINED_TRIES + ")" : "")
                        + ": " + detail;
            } catch (IOException e) {
                away = path + ": " + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while calling the Tinker engine at " + base, e);
            }
            if (pauses == null) {
                pauses = backoff.get();
                awaySince = System.nanoTime();
            }
            listener.engineAway(away);
            if (grace != null && System.nanoTime() - awaySince >= grace.toNanos()) {
                throw new TinkerUnavailableException("the Tinker engine at " + base + " is still away after " + grace.toSeconds() + " s: " + away);
            }
            try {
                pauses.sleep();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for the Tinker engine at " + base + " (" + away + ")", e);
            }
        }
    }

    /** FastAPI's error body as a sentence: "detail", or each validation error as "field.path: message". */
    static String detail(byte[] body) {
        try {
            JsonNode d = JSON.readTree(body).path("detail");
            if (d.isArray()) {
                List<String> parts = new ArrayList<>();
                for (JsonNode e : d) {
                    List<String> loc = new ArrayList<>();
                    for (JsonNode l : e.path("loc")) {
                        if (!l.asText().equals("body")) {
                            loc.add(l.asText());
                        }
                    }
                    parts.add((loc.isEmpty() ? "the body" : String.join(".", loc)) + ": " + e.path("msg").asText());
                }
                return String.join("; ", parts);
            }
            if (!d.isMissingNode()) {
                return d.isTextual() ? d.asText() : d.toString();
            }
        } catch (IOException notJson) {
            // the body as text below
        }
        return text(body);
    }

    private static String text(byte[] body) {
        String s = new String(body, StandardCharsets.UTF_8);
        return s.length() > 500 ? s.substring(0, 500) + "…" : s;
    }

    private static JsonNode json(HttpResponse<byte[]> r) {
        try {
            return JSON.readTree(r.body());
        } catch (IOException e) {
            throw new IllegalStateException(r.uri().getPath() + " answered a body that is not JSON: " + text(r.body()), e);
        }
    }

    private static byte[] bytes(Object body) {
        try {
            return JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write " + body + " as JSON", e);
        }
    }
}
