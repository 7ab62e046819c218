package ai.openalice.rl.servicekit.auth;

import ai.openalice.rl.servicekit.rest.Problems;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.ForbiddenException;
import io.quarkus.security.UnauthorizedException;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Response;
import java.util.Map;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * A refused request as problem details, like every other 4xx: 401 with {@code WWW-Authenticate:
 * Bearer} when there is no token or it does not verify (why, from the verifier's own message: a bad
 * signature, an expired token, a wrong issuer), 403 naming the roles the door wants. Authentication
 * is lazy in the services ({@code quarkus.http.auth.proactive=false}), so both reach these mappers
 * before anything of the request is processed.
 */
public class AuthProblems {
    private static final Logger LOG = Logger.getLogger(AuthProblems.class);

    static Response unauthorized(String detail) {
        return Response.fromResponse(Problems.of(401, "Unauthorized", detail)).header("WWW-Authenticate", "Bearer").build();
    }

    /** The innermost message of a verification failure (smallrye-jwt wraps jose4j's reason). */
    static String reason(Throwable e) {
        String reason = null;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                reason = t.getMessage();
            }
        }
        if (reason == null) {
            return "it did not verify";
        }
        return reason.length() > 300 ? reason.substring(0, 300) + "…" : reason;
    }

    @ServerExceptionMapper
    public Response noToken(UnauthorizedException e) {
        return unauthorized("this endpoint needs a bearer token (Authorization: Bearer <JWT>)");
    }

    @ServerExceptionMapper
    public Response refused(AuthenticationFailedException e) {
        String why = reason(e);
        LOG.debugf("bearer token refused: %s", why);
        return unauthorized("the bearer token was refused: " + why);
    }

    @ServerExceptionMapper
    public Response forbidden(ForbiddenException e, ResourceInfo resource) {
        RolesAllowed wanted = null;
        if (resource != null && resource.getResourceMethod() != null) {
            wanted = resource.getResourceMethod().getAnnotation(RolesAllowed.class);
            if (wanted == null) {
                wanted = resource.getResourceClass().getAnnotation(RolesAllowed.class);
            }
        }
        String roles = wanted == null ? "a role it needs" : "one of " + String.join(", ", wanted.value());
        return Problems.of(403, "Forbidden", "the token's roles (its groups claim) do not include " + roles, Map.of());
    }
}
