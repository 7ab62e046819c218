package ai.openalice.rl.inference.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A streamed answer as OpenAI's clients read it: Server-Sent Events, one {@code data: <json>}
 * event per chunk, then {@code data: [DONE]}; each chunk is flushed as it is written, so a token
 * sampled is on the wire before the next one is. A failure after the stream began is an
 * {@code error} event (the status line was sent already), and no {@code [DONE]}.
 */
final class Sse {
    private static final ObjectMapper JSON = new ObjectMapper();

    private Sse() {}

    /** Writes one chunk. */
    interface Chunks {
        void send(Map<String, Object> chunk) throws IOException;
    }

    /** Chunks written by {@code body} as it makes them. */
    interface Body {
        void write(Chunks out) throws IOException;
    }

    static Response streaming(Body body) {
        StreamingOutput output = out -> {
            Chunks chunks = chunk -> {
                out.write(("data: " + JSON.writeValueAsString(chunk) + "\n\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            };
            try {
                body.write(chunks);
            } catch (ProblemException e) {
                chunks.send(Map.of("error", Map.of("message", e.getMessage(), "type", "generation_failed")));
                return;
            }
            out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
        };
        return Response.ok(output, "text/event-stream").header("Cache-Control", "no-cache").build();
    }

    /** Whether {@code stream_options.include_usage} asks for a last chunk with the usage. */
    static boolean includeUsage(JsonNode streamOptions) {
        return streamOptions != null && streamOptions.path("include_usage").asBoolean(false);
    }
}
