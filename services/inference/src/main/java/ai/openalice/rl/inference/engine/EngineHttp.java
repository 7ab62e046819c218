package ai.openalice.rl.inference.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** JSON over HTTP to an engine: a non-2xx answer is an {@link EngineException} with the engine's words, a refused connection an unavailable one. */
final class EngineHttp {
    static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final String apiKey;
    // HTTP/1.1: by default Java's client asks a plain-http server to upgrade to HTTP/2 (h2c), and
    // uvicorn — vLLM's and SGLang's server — then drops the request's body (a real vLLM answered every
    // load_lora_adapter with 400 "body: Field required").
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    private final Duration timeout;

    EngineHttp(URI base, String apiKey, Duration timeout) {
        this.base = base;
        this.apiKey = apiKey;
        this.timeout = timeout;
    }

    ObjectNode object() {
        return JSON.createObjectNode();
    }

    /** The answer's body (some engines answer a load with plain text). */
    String post(String path, ObjectNode body) {
        URI uri = base.resolve(base.getPath().endsWith("/") ? path.substring(1) : base.getPath() + path);
        var request = HttpRequest.newBuilder(uri).timeout(timeout).header("Content-Type", "application/json");
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        HttpResponse<String> resp;
        try {
            resp = http.send(request.POST(HttpRequest.BodyPublishers.ofString(body.toString())).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new EngineException("engine " + uri + " unreachable: " + e.getMessage(), true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new EngineException("interrupted while calling " + uri, true);
        }
        if (resp.statusCode() / 100 != 2) {
            String b = resp.body();
            throw new EngineException("engine " + uri + " answered " + resp.statusCode() + ": " + (b.length() > 500 ? b.substring(0, 500) + "…" : b),
                    resp.statusCode() == 503);
        }
        return resp.body();
    }

    JsonNode postJson(String path, ObjectNode body) {
        String answer = post(path, body);
        try {
            return JSON.readTree(answer);
        } catch (IOException e) {
            throw new EngineException("engine answered " + path + " with something other than JSON: " + answer, false);
        }
    }
}
