package ai.openalice.rl.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.Signature;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokensTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Checked without jose4j: the JWS signing input verified with the JDK's own RS256, the claims read as plain JSON. */
    @Test
    void aTokenIsAnRs256JwtWithTheClaimsTheServicesRead() throws Exception {
        var keys = Tokens.generate();
        long before = System.currentTimeMillis() / 1000;
        String token = Tokens.issue(keys.getPrivate(), "alice-rl", "team-a", List.of(Roles.SUBMITTER, Roles.READER), Duration.ofHours(2));
        String[] parts = token.split("\\.");
        assertEquals(3, parts.length);
        var header = JSON.readTree(Base64.getUrlDecoder().decode(parts[0]));
        assertEquals("RS256", header.get("alg").asText());
        var sig = Signature.getInstance("SHA256withRSA");
        sig.initVerify(keys.getPublic());
        sig.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
        assertTrue(sig.verify(Base64.getUrlDecoder().decode(parts[2])));
        var claims = JSON.readTree(Base64.getUrlDecoder().decode(parts[1]));
        assertEquals("alice-rl", claims.get("iss").asText());
        assertEquals("team-a", claims.get("sub").asText());
        assertEquals("team-a", claims.get("upn").asText());
        assertEquals(List.of("submitter", "reader"), List.of(claims.get("groups").get(0).asText(), claims.get("groups").get(1).asText()));
        long iat = claims.get("iat").asLong();
        assertTrue(iat >= before && iat <= before + 60);
        assertEquals(iat + 7200, claims.get("exp").asLong(), 1);
    }

    @Test
    void anUnknownRoleIsRefusedByName() {
        var keys = Tokens.generate();
        var e = assertThrows(IllegalArgumentException.class,
                () -> Tokens.issue(keys.getPrivate(), "alice-rl", "x", List.of("operater"), Duration.ofMinutes(5)));
        assertTrue(e.getMessage().contains("'operater'"), e.getMessage());
    }

    @Test
    void thePrivateKeyIsWrittenOwnerOnlyAndReadBack(@TempDir Path dir) throws Exception {
        var keys = Tokens.generate();
        Path file = dir.resolve("auth/private.pem");
        Tokens.writeOwnerOnly(file, Tokens.privatePem(keys.getPrivate()));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(keys.getPrivate(), Tokens.readPrivate(file));
        assertTrue(Tokens.publicPem(keys.getPublic()).startsWith("-----BEGIN PUBLIC KEY-----\n"));
        Files.writeString(dir.resolve("rsa.pem"), "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        var e = assertThrows(IllegalArgumentException.class, () -> Tokens.readPrivate(dir.resolve("rsa.pem")));
        assertTrue(e.getMessage().contains("PKCS#8"), e.getMessage());
    }
}
