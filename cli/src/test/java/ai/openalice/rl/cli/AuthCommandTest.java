package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.auth.Tokens;
import ai.openalice.rl.cli.train.LocalAuth;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code alice-rl auth keygen/issue}, and the embedded run's own keys and tokens ({@link LocalAuth}). */
class AuthCommandTest {
    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        var out = new StringWriter();
        var err = new StringWriter();
        int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void keygenThenIssueMakesATokenThePublicKeyVerifies(@TempDir Path dir) throws Exception {
        assertEquals(0, run("auth", "keygen", "--out", dir.toString()).exit());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("private.pem"))));
        var again = run("auth", "keygen", "--out", dir.toString());
        assertEquals(2, again.exit(), "never replaces a signing key");
        assertTrue(again.err().contains("refusing"), again.err());
        var issued = run("auth", "issue", "--key", dir.resolve("private.pem").toString(), "--subject", "team-a", "--role", "submitter,reader",
                "--days", "7");
        assertEquals(0, issued.exit(), issued.err());
        JsonNode claims = verify(issued.out().strip(), publicKey(dir.resolve("public.pem")));
        assertEquals("team-a", claims.get("upn").asText());
        assertEquals("[\"submitter\",\"reader\"]", claims.get("groups").toString());
        assertEquals(7 * 86_400, claims.get("exp").asLong() - claims.get("iat").asLong(), 60);
    }

    @Test
    void aWrongRoleOrKeyIsNamed(@TempDir Path dir) throws Exception {
        run("auth", "keygen", "--out", dir.toString());
        var role = run("auth", "issue", "--key", dir.resolve("private.pem").toString(), "--subject", "x", "--role", "admin");
        assertEquals(2, role.exit());
        assertTrue(role.err().contains("--role: unknown role 'admin'"), role.err());
        var key = run("auth", "issue", "--key", dir.resolve("public.pem").toString(), "--subject", "x", "--role", "reader");
        assertEquals(2, key.exit());
        assertTrue(key.err().contains("--key") && key.err().contains("PKCS#8"), key.err());
    }

    @Test
    void anEmbeddedRunKeepsItsKeyAndIssuesItsTokensOwnerOnly(@TempDir Path dir) throws Exception {
        Path auth = dir.resolve("state/auth");
        var first = LocalAuth.prepare(auth);
        String publicKey = Files.readString(auth.resolve("public.pem"));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(auth)));
        for (String f : List.of("private.pem", "services.jwt", "operator.jwt")) {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(auth.resolve(f))), f);
        }
        var second = LocalAuth.prepare(auth);
        assertEquals(publicKey, Files.readString(auth.resolve("public.pem")), "the key pair is kept across starts");
        assertNotEquals(first.operatorToken(), second.operatorToken(), "tokens are issued afresh");
        PublicKey key = publicKey(auth.resolve("public.pem"));
        assertEquals("[\"policy-client\",\"scorer\"]", verify(Tokens.read(auth.resolve("services.jwt")), key).get("groups").toString());
        assertEquals("[\"submitter\",\"operator\",\"reader\",\"policy-client\",\"scorer\"]", verify(second.operatorToken(), key).get("groups").toString());
        var settings = new ArrayList<>(second.serviceSettings());
        assertEquals(List.of("-Dalice.auth.enabled=true", "-Dmp.jwt.verify.publickey.location=" + auth.resolve("public.pem"),
                "-Dalice.auth.client-token-file=" + auth.resolve("services.jwt")), settings);
    }

    static PublicKey publicKey(Path pem) throws Exception {
        String text = Files.readString(pem).replace("-----BEGIN PUBLIC KEY-----", "").replace("-----END PUBLIC KEY-----", "");
        return KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(Base64.getMimeDecoder().decode(text)));
    }

    /** The claims of an RS256 JWT whose signature {@code key} verifies (checked with the JDK, not the library that signed it). */
    static JsonNode verify(String jwt, PublicKey key) throws Exception {
        String[] parts = jwt.split("\\.");
        var sig = Signature.getInstance("SHA256withRSA");
        sig.initVerify(key);
        sig.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
        assertTrue(sig.verify(Base64.getUrlDecoder().decode(parts[2])), "signature");
        return new ObjectMapper().readTree(Base64.getUrlDecoder().decode(parts[1]));
    }
}
