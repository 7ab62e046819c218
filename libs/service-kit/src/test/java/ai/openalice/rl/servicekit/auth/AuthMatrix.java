package ai.openalice.rl.servicekit.auth;

import ai.openalice.rl.auth.Roles;
import ai.openalice.rl.auth.Tokens;
import io.quarkus.test.junit.QuarkusTestProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The services' role-matrix tests: a key pair made for the test run (the public half is what the
 * service under {@link Profile} verifies with), tokens signed with it, and the check of every door
 * against every caller — no token, a token signed by another key, an expired one, one from another
 * issuer (all 401), and a token holding each single role (403 unless the door lists it; then the
 * request is processed: any status but 401 and 403).
 */
public final class AuthMatrix {
    public static final KeyPair KEYS = Tokens.generate();
    private static final KeyPair STRANGER = Tokens.generate();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private AuthMatrix() {}

    /** Auth on, verifying with {@link #KEYS}. */
    public static class Profile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            try {
                Path pub = Files.createTempFile("alice-auth-test", ".pem");
                Files.writeString(pub, Tokens.publicPem(KEYS.getPublic()));
                pub.toFile().deleteOnExit();
                return Map.of("alice.auth.enabled", "true", "mp.jwt.verify.publickey.location", pub.toString());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    public static String token(String subject, String... roles) {
        return Tokens.issue(KEYS.getPrivate(), Tokens.ISSUER, subject, List.of(roles), Duration.ofMinutes(30));
    }

    /** One door: a method and path, a body that the door would process, and the roles that open it. */
    public record Door(String method, String path, String body, Set<String> roles) {}

    public record Reply(int status, String body) {}

    public static Reply call(URI base, String method, String path, String body, String token) {
        try {
            var b = HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/json");
            if (token != null) {
                b.header("Authorization", "Bearer " + token);
            }
            b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
            var r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The callers every door is tried with, in order: the four refused outright, then one per role. */
    static Map<String, String> callers() {
        var c = new LinkedHashMap<String, String>();
        c.put("no token", null);
        c.put("another key", Tokens.issue(STRANGER.getPrivate(), Tokens.ISSUER, "mallory", Roles.ALL, Duration.ofMinutes(30)));
        c.put("expired", expired());
        c.put("another issuer", Tokens.issue(KEYS.getPrivate(), "someone-else", "mallory", Roles.ALL, Duration.ofMinutes(30)));
        for (String role : Roles.ALL) {
            c.put(role, token("matrix-" + role, role));
        }
        return c;
    }

    /** Signed by the right key, every role, but its {@code exp} two minutes past (beyond smallrye-jwt's 60 s default leeway). */
    private static String expired() {
        return Tokens.issue(KEYS.getPrivate(), Tokens.ISSUER, "mallory", Roles.ALL, Duration.ofMinutes(-2));
    }

    /**
     * Every door against every caller; returns the mismatches as lines "METHOD path · caller: got N,
     * expected …" (empty when the table holds), and how many cells were checked into {@code cells}.
     */
    public static List<String> check(URI base, List<Door> doors, int[] cells) {
        var wrong = new ArrayList<String>();
        var callers = callers();
        for (var door : doors) {
            for (var caller : callers.entrySet()) {
                var reply = call(base, door.method(), door.path(), door.body(), caller.getValue());
                cells[0]++;
                String role = caller.getKey();
                boolean refused = caller.getValue() == null || !Roles.ALL.contains(role);
                String expected = refused ? "401" : door.roles().contains(role) ? "processed" : "403";
                boolean ok = switch (expected) {
                    case "401" -> reply.status() == 401 && reply.body().contains("\"status\":401");
                    case "403" -> reply.status() == 403 && reply.body().contains("\"status\":403");
                    default -> reply.status() != 401 && reply.status() != 403;
                };
                if (!ok) {
                    wrong.add(door.method() + " " + door.path() + " · " + role + ": got " + reply.status() + " " + abbreviate(reply.body())
                            + ", expected " + expected);
                }
            }
        }
        return wrong;
    }

    private static String abbreviate(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }
}
