package ai.openalice.rl.inference.rest;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Map;

/** A request the service cannot serve, answered as RFC 9457 problem details naming the cause. */
public class ProblemException extends RuntimeException {
    private final int status;
    private final String title;

    public ProblemException(int status, String title, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.title = title;
    }

    public static ProblemException badRequest(String detail) {
        return new ProblemException(400, "Bad request", detail);
    }

    /** Maps {@link ProblemException} to {@code application/problem+json}. */
    @Provider
    public static class Mapper implements ExceptionMapper<ProblemException> {
        @Override
        public Response toResponse(ProblemException e) {
            return Response.status(e.status).type(MediaType.valueOf("application/problem+json"))
                    .entity(Map.of("type", "about:blank", "title", e.title, "status", e.status, "detail", e.getMessage())).build();
        }
    }
}
