package ai.openalice.rl.trainer;

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

/** The trainer's door with auth on: its status is for readers and operators. */
@QuarkusTest
@TestProfile(AuthMatrix.Profile.class)
class AuthTest {
    @TestHTTPResource("/")
    URL base;

    @Test
    void everyDoorOpensForItsRolesOnly() {
        var doors = List.of(new Door("GET", "/status", null, Set.of(Roles.READER, Roles.OPERATOR)));
        int[] cells = {0};
        var wrong = AuthMatrix.check(URI.create(base.toString()), doors, cells);
        assertEquals(List.of(), wrong, String.join("\n", wrong));
        assertEquals(doors.size() * 9, cells[0]);
        assertEquals(200, AuthMatrix.call(URI.create(base.toString()), "GET", "/q/health/live", null, null).status());
    }
}
