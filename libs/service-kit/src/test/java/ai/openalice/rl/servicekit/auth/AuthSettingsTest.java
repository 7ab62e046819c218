package ai.openalice.rl.servicekit.auth;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class AuthSettingsTest {
    @Test
    void authOnWithoutAKeyRefusesToStartNamingTheSettings() {
        var e = assertThrows(IllegalStateException.class, () -> AuthSettings.check(true, Optional.empty(), Optional.of(" ")));
        assertTrue(e.getMessage().contains("mp.jwt.verify.publickey.location") && e.getMessage().contains("alice.auth.enabled=false"), e.getMessage());
        assertDoesNotThrow(() -> AuthSettings.check(true, Optional.of("/etc/alice-rl/auth/public.pem"), Optional.empty()));
        assertDoesNotThrow(() -> AuthSettings.check(false, Optional.empty(), Optional.empty()));
    }

    @Test
    void theReasonOfARefusedTokenIsItsInnermostMessage() {
        var e = new RuntimeException("SRJWT07000: Failed to verify a token", new IllegalStateException("The JWT is no longer valid"));
        assertEquals("The JWT is no longer valid", AuthProblems.reason(e));
        assertEquals("it did not verify", AuthProblems.reason(new RuntimeException()));
        assertEquals(301, AuthProblems.reason(new RuntimeException("x".repeat(1000))).length());
    }
}
