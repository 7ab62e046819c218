package ai.openalice.rl.inference.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * A streamed answer as OpenAI's clients read it: Server-Sent Events, one {@code data: <json>}
 * event per chunk, then {@code data: [DONE]}. The service samples a request's tokens in one batch
 * step, so the chunks are written when the samples are done (each sample's text in one chunk);
 * what a client sees is the format it expects, not token-by-token latency.
 */
final class Sse {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Sse() {}

    static Response of(List<Map<String, Object>> chunks) {
        StreamingOutput body = out -> {
            for (Map<String, Object> chunk : chunks) {
                out.write(("data: " + JSON.writeValueAsString(chunk) + "\n\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
        };
        return Response.ok(body, "text/event-stream").header("Cache-Control", "no-cache").build();
    }

    /** Whether {@code stream_options.include_usage} asks for a last chunk with the usage. */
    static boolean includeUsage(JsonNode streamOptions) {
        return streamOptions != null && streamOptions.path("include_usage").asBoolean(false);
    }
}
