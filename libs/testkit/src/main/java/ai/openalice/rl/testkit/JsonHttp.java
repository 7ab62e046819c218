package ai.openalice.rl.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A JSON request to a running service's REST door, as the cluster and compose tests and the
 * deployment benchmarks make them: a status of 300 or more is an IOException that names the request
 * and carries the answer's body.
 */
public final class JsonHttp {
    private JsonHttp() {}

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** {@code method} on {@code uri} with {@code body} as JSON (none when null), within 30 s; the answer parsed. */
    public static JsonNode send(String method, URI uri, String body) throws IOException, InterruptedException {
        var request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body)).build();
        var response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 300) {
            throw new IOException(method + " " + uri + ": " + response.statusCode() + " " + response.body());
        }
        return JSON.readTree(response.body());
    }
}
