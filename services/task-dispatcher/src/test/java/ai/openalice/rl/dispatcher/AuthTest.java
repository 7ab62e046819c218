package ai.openalice.rl.dispatcher;

import static ai.openalice.rl.dispatcher.DispatcherFixture.task;
import static ai.openalice.rl.servicekit.auth.AuthMatrix.call;
import static ai.openalice.rl.servicekit.auth.AuthMatrix.token;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.auth.Roles;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.servicekit.auth.AuthMatrix.Door;
import ai.openalice.rl.servicekit.auth.AuthMatrix;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URI;
import java.net.URL;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The dispatcher's doors with auth on: the endpoint × caller table, and a task's source being its submitter. */
@QuarkusTest
@TestProfile(AuthMatrix.Profile.class)
class AuthTest {
    @TestHTTPResource("/")
    URL base;

    URI base() {
        return URI.create(base.toString());
    }

    @Test
    void everyDoorOpensForItsRolesOnly() {
        String id = "auth-" + UUID.randomUUID();
        var read = Set.of(Roles.READER, Roles.OPERATOR);
        var doors = List.of(new Door("POST", "/tasks", task(id, "train", null).toString(), Set.of(Roles.SUBMITTER, Roles.OPERATOR)),
                new Door("GET", "/tasks/" + id, null, Set.of(Roles.READER, Roles.SUBMITTER, Roles.OPERATOR)),
                new Door("POST", "/evals", "{}", Set.of(Roles.OPERATOR)), new Door("GET", "/evals/" + UUID.randomUUID(), null, read),
                new Door("GET", "/stats", null, read), new Door("GET", "/groups/" + UUID.randomUUID(), null, read));
        int[] cells = {0};
        var wrong = AuthMatrix.check(base(), doors, cells);
        assertEquals(List.of(), wrong, String.join("\n", wrong));
        assertEquals(6 * 9, cells[0]);
        // probes and metrics stay open, as Kubernetes and Prometheus expect
        assertEquals(200, call(base(), "GET", "/q/health/live", null, null).status());
        assertEquals(200, call(base(), "GET", "/q/metrics", null, null).status());
    }

    @Test
    void aRefusedRequestIsNotProcessed() {
        String id = "auth-refused-" + UUID.randomUUID();
        var body = task(id, "train", null).toString();
        assertEquals(401, call(base(), "POST", "/tasks", body, null).status());
        var forbidden = call(base(), "POST", "/tasks", body, token("r", Roles.READER));
        assertEquals(403, forbidden.status());
        assertTrue(forbidden.body().contains("one of submitter, operator"), forbidden.body());
        var classLevel = call(base(), "GET", "/stats", null, token("p", Roles.POLICY_CLIENT)); // @RolesAllowed on the class
        assertTrue(classLevel.body().contains("one of reader, operator"), classLevel.body());
        assertEquals(404, call(base(), "GET", "/tasks/" + id, null, token("r", Roles.READER)).status());
        // a malformed body is not even read without a token: 401, not 400
        assertEquals(401, call(base(), "POST", "/evals", "{not json", null).status());
    }

    @Test
    void aTaskIsRecordedUnderItsSubmittersName() throws Exception {
        String mine = "auth-mine-" + UUID.randomUUID();
        assertEquals(200, call(base(), "POST", "/tasks", task(mine, "train", null).toString(), token("team-a", Roles.SUBMITTER)).status());
        assertEquals("team-a", source(mine));
        var asOther = call(base(), "POST", "/tasks?source=team-b", task("auth-x-" + UUID.randomUUID(), "train", null).toString(),
                token("team-a", Roles.SUBMITTER));
        assertEquals(403, asOther.status());
        assertTrue(asOther.body().contains("'team-a'") && asOther.body().contains("source"), asOther.body());
        String onBehalf = "auth-behalf-" + UUID.randomUUID();
        assertEquals(200,
                call(base(), "POST", "/tasks?source=team-b", task(onBehalf, "train", null).toString(), token("ops", Roles.OPERATOR)).status());
        assertEquals("team-b", source(onBehalf));
    }

    private String source(String id) throws Exception {
        var reply = call(base(), "GET", "/tasks/" + id, null, token("r", Roles.READER));
        assertEquals(200, reply.status(), reply.body());
        return EventCodec.mapper().readTree(reply.body()).get("source").asText();
    }
}
