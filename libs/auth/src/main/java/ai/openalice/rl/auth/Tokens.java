package ai.openalice.rl.auth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.jose4j.lang.JoseException;

/**
 * The bearer tokens of alice-rl's REST doors: RS256 JWTs with {@code iss} (the services check it,
 * {@code alice.auth.issuer}, default {@value #ISSUER}), {@code sub} and {@code upn} (the caller's
 * name: a task's source), {@code groups} (its {@link Roles}), {@code iat}, {@code exp} and a
 * {@code jti}. Keys are RSA 2048 in PEM: PKCS#8 {@code PRIVATE KEY} (written owner-only) and X.509
 * {@code PUBLIC KEY}, the form {@code mp.jwt.verify.publickey.location} reads.
 */
public final class Tokens {
    public static final String ISSUER = "alice-rl";

    private Tokens() {}

    /** The {@code Authorization} header's value that presents {@code token}. */
    public static String authorization(String token) {
        return "Bearer " + token;
    }

    /** A token kept in a file (a mounted Secret, {@code alice-rl auth issue}'s output): its text without the line end. */
    public static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.US_ASCII).strip();
    }

    public static KeyPair generate() {
        try {
            var g = KeyPairGenerator.getInstance("RSA");
            g.initialize(2048);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("RSA key generation is not available in this JVM", e);
        }
    }

    /** A signed token for {@code subject} holding {@code roles}, valid for {@code ttl} from now. */
    public static String issue(PrivateKey key, String issuer, String subject, Collection<String> roles, Duration ttl) {
        for (String r : roles) {
            if (!Roles.ALL.contains(r)) {
                throw new IllegalArgumentException("unknown role '" + r + "'; the roles are " + String.join(", ", Roles.ALL));
            }
        }
        var claims = new JwtClaims();
        claims.setIssuer(issuer);
        claims.setSubject(subject);
        claims.setClaim("upn", subject);
        claims.setStringListClaim("groups", List.copyOf(roles));
        claims.setIssuedAtToNow();
        claims.setExpirationTimeMinutesInTheFuture(ttl.toSeconds() / 60f);
        claims.setJwtId(UUID.randomUUID().toString());
        var jws = new JsonWebSignature();
        jws.setPayload(claims.toJson());
        jws.setKey(key);
        jws.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
        jws.setHeader("typ", "JWT");
        try {
            return jws.getCompactSerialization();
        } catch (JoseException e) {
            throw new IllegalStateException("could not sign a token: " + e.getMessage(), e);
        }
    }

    public static String publicPem(PublicKey key) {
        return pem("PUBLIC KEY", key.getEncoded());
    }

    public static String privatePem(PrivateKey key) {
        return pem("PRIVATE KEY", key.getEncoded());
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    /** Reads a PKCS#8 {@code PRIVATE KEY} PEM (as {@link #privatePem} writes and {@code openssl genpkey} does). */
    public static PrivateKey readPrivate(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the signing key " + file + ": " + e.getMessage(), e);
        }
        int begin = text.indexOf("-----BEGIN PRIVATE KEY-----");
        int end = text.indexOf("-----END PRIVATE KEY-----");
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException(file + " is not a PKCS#8 PEM private key (-----BEGIN PRIVATE KEY-----); convert one with "
                    + "openssl pkcs8 -topk8 -nocrypt");
        }
        byte[] der = Base64.getMimeDecoder().decode(text.substring(begin + 27, end));
        try {
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(file + " does not hold an RSA private key: " + e.getMessage(), e);
        }
    }

    /** Writes {@code text} to {@code file} readable and writable by its owner only (created so, never readable by others in between). */
    public static void writeOwnerOnly(Path file, String text) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.deleteIfExists(file);
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(file, text, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }
}
