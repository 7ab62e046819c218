package ai.openalice.rl.inference;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.auth.Roles;
import ai.openalice.rl.servicekit.auth.AuthMatrix.Door;
import ai.openalice.rl.servicekit.auth.AuthMatrix;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import java.net.URI;
import java.net.URL;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The inference service's doors with auth on: only a policy-client is served completions (a client that reaches the port cannot read out the policy). */
@QuarkusTest
@TestProfile(AuthMatrix.Profile.class)
class AuthTest {
    @TestHTTPResource("/")
    URL base;

    @Test
    void everyDoorOpensForItsRolesOnly() {
        var doors = List.of(new Door("GET", "/v1/models", null, Set.of(Roles.POLICY_CLIENT)),
                new Door("POST", "/v1/completions", "{\"prompt\":[1,2,3],\"max_tokens\":1}", Set.of(Roles.POLICY_CLIENT)),
                new Door("POST", "/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":1}",
                        Set.of(Roles.POLICY_CLIENT)));
        int[] cells = {0};
        var wrong = AuthMatrix.check(URI.create(base.toString()), doors, cells);
        assertEquals(List.of(), wrong, String.join("\n", wrong));
        assertEquals(doors.size() * 9, cells[0]);
        assertEquals(200, AuthMatrix.call(URI.create(base.toString()), "GET", "/q/health/live", null, null).status());
    }
}
