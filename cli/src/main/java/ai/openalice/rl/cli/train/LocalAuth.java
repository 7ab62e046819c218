package ai.openalice.rl.cli.train;

import ai.openalice.rl.auth.Roles;
import ai.openalice.rl.auth.Tokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.time.Duration;
import java.util.List;

/**
 * The keys and tokens of an embedded run, in {@code <state>/auth} (owner-only, 0700): an RSA key
 * pair made on the first start and kept (so that a token handed out earlier stays good across
 * restarts), the public half given to every service to verify with, and two tokens issued afresh
 * on every start — {@code services.jwt} ({@code policy-client}, {@code scorer}: what the runner
 * needs to ask inference and rubric-prm) and {@code operator.jwt} (every role: what {@code alice-rl
 * train}, {@code eval} and the owner of the run at the same account need, curl to inference included).
 * Nothing is configured by hand; sandboxes (other uids) cannot read the folder.
 */
public final class LocalAuth {
    /** Long enough for a run of weeks; every start issues new ones. */
    static final Duration TTL = Duration.ofDays(365);
    public static final List<String> SERVICE_ROLES = List.of(Roles.POLICY_CLIENT, Roles.SCORER);
    /** The owner of the run may do everything, try the served policy included. */
    public static final List<String> OPERATOR_ROLES = Roles.ALL;

    private final Path dir;
    private final String operatorToken;

    private LocalAuth(Path dir, String operatorToken) {
        this.dir = dir;
        this.operatorToken = operatorToken;
    }

    /** Makes (or reuses) the key pair in {@code dir} and issues this start's tokens. */
    public static LocalAuth prepare(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        Path privateKey = dir.resolve("private.pem");
        PrivateKey key;
        if (Files.isRegularFile(privateKey) && Files.isRegularFile(dir.resolve("public.pem"))) {
            key = Tokens.readPrivate(privateKey);
        } else {
            KeyPair pair = Tokens.generate();
            Tokens.writeOwnerOnly(privateKey, Tokens.privatePem(pair.getPrivate()));
            Tokens.writeOwnerOnly(dir.resolve("public.pem"), Tokens.publicPem(pair.getPublic()));
            key = pair.getPrivate();
        }
        Tokens.writeOwnerOnly(dir.resolve("services.jwt"), Tokens.issue(key, Tokens.ISSUER, "alice-rl-services", SERVICE_ROLES, TTL) + "\n");
        String operator = Tokens.issue(key, Tokens.ISSUER, "alice-rl-operator", OPERATOR_ROLES, TTL);
        Tokens.writeOwnerOnly(dir.resolve("operator.jwt"), operator + "\n");
        return new LocalAuth(dir, operator);
    }

    /** What every service is started with: auth on, this run's public key, and the services' token for the calls they make. */
    public List<String> serviceSettings() {
        return List.of("-Dalice.auth.enabled=true", "-Dmp.jwt.verify.publickey.location=" + dir.resolve("public.pem"),
                "-Dalice.auth.client-token-file=" + dir.resolve("services.jwt"));
    }

    public String operatorToken() {
        return operatorToken;
    }

    public Path operatorTokenFile() {
        return dir.resolve("operator.jwt");
    }
}
