package ai.openalice.rl.servicekit.auth;

import ai.openalice.rl.auth.Tokens;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The bearer token a service sends when it calls another one (the runner asks inference and
 * rubric-prm): {@code alice.auth.client-token-file}, read again on every call so that a rotated
 * token (a Kubernetes secret updated in place) is taken without a restart, or {@code
 * alice.auth.client-token}. Neither set: no {@code Authorization} header.
 */
@ApplicationScoped
public class ClientToken {
    @ConfigProperty(name = "alice.auth.client-token-file")
    Optional<String> file;

    @ConfigProperty(name = "alice.auth.client-token")
    Optional<String> token;

    /** The token (null: none) — as a supplier for clients that live outside CDI. */
    public Supplier<String> supplier() {
        Optional<String> f = file.filter(s -> !s.isBlank());
        if (f.isPresent()) {
            Path path = Path.of(f.get());
            return () -> read(path);
        }
        String t = token.filter(s -> !s.isBlank()).orElse(null);
        return () -> t;
    }

    static String read(Path path) {
        try {
            return Tokens.read(path);
        } catch (IOException e) {
            throw new UncheckedIOException("alice.auth.client-token-file: cannot read " + path + ": " + e.getMessage(), e);
        }
    }
}
