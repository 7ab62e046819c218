package ai.openalice.rl.servicekit.rest;

import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.Map;

/** RFC 9457 problem details: the body of every 4xx and 5xx answer of the services' REST APIs. */
public final class Problems {
    private Problems() {}

    public static Response of(int status, String title, String detail, Map<String, Object> extra) {
        var body = new LinkedHashMap<String, Object>();
        body.put("type", "about:blank");
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        body.putAll(extra);
        return Response.status(status).type("application/problem+json").entity(body).build();
    }

    public static Response of(int status, String title, String detail) {
        return of(status, title, detail, Map.of());
    }
}
