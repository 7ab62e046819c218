package ai.openalice.rl.servicekit.rest;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * A body that is not JSON, or not of the shape a typed endpoint reads (a string where a number
 * goes), as a 400 problem naming the field — where Quarkus REST would answer an empty 400 or
 * Jackson's own object. Found by the generated bad requests of {@code InferenceServiceTest}.
 */
public class JsonProblems {
    @ServerExceptionMapper
    public Response notJson(JsonParseException e) {
        return Problems.of(400, "Invalid request", "the body is not JSON: " + e.getOriginalMessage());
    }

    @ServerExceptionMapper
    public Response mismatched(MismatchedInputException e) {
        return shape(e);
    }

    @ServerExceptionMapper
    public Response mapping(JsonMappingException e) {
        return shape(e);
    }

    @ServerExceptionMapper
    public Response other(JsonProcessingException e) {
        return Problems.of(400, "Invalid request", "the body cannot be read: " + e.getOriginalMessage());
    }

    /**
     * What Quarkus REST itself refuses without a body — a request body it could not read (it wraps
     * Jackson's parse error), an unknown path, a method or media type the endpoint does not take —
     * as a problem with the same status and headers, the cause named when there is one. A response
     * that already has a body passes unchanged.
     */
    @ServerExceptionMapper
    public Response web(WebApplicationException e) {
        Response r = e.getResponse();
        if (r.hasEntity()) {
            return r;
        }
        Throwable cause = e.getCause();
        while (cause != null && cause.getCause() != null && cause.getCause() != cause) {
            if (cause instanceof JsonMappingException) {
                break;
            }
            cause = cause.getCause();
        }
        String detail;
        if (cause instanceof JsonMappingException m && !(cause instanceof JsonParseException)) {
            return Response.fromResponse(shape(m)).status(r.getStatus()).build();
        } else if (cause instanceof JsonProcessingException j) {
            detail = "the body is not JSON: " + j.getOriginalMessage();
        } else {
            detail = e.getMessage() == null ? r.getStatusInfo().getReasonPhrase() : e.getMessage();
        }
        var out = Response.fromResponse(Problems.of(r.getStatus(), r.getStatusInfo().getReasonPhrase(), detail));
        r.getHeaders().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("Content-Type") && !name.equalsIgnoreCase("Content-Length")) {
                values.forEach(v -> out.header(name, v));
            }
        });
        return out.build();
    }

    static Response shape(JsonMappingException e) {
        String field = field(e);
        String message = e.getOriginalMessage() == null ? "wrong type" : e.getOriginalMessage().lines().findFirst().orElse("wrong type");
        return Problems.of(400, "Invalid request", (field.isEmpty() ? "" : field + ": ") + message, field.isEmpty() ? Map.of() : Map.of("field", field));
    }

    /** The field path as the client wrote it: {@code messages[1].content}. */
    static String field(JsonMappingException e) {
        var out = new StringBuilder();
        for (var ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                if (!out.isEmpty()) {
                    out.append('.');
                }
                out.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                out.append('[').append(ref.getIndex()).append(']');
            }
        }
        return out.toString();
    }
}
