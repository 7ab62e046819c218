package ai.openalice.rl.servicekit.auth;

import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Whether the REST doors check bearer tokens ({@code alice.auth.enabled}, on unless a deployment
 * turns it off). On, a service needs a key to verify signatures with — {@code
 * mp.jwt.verify.publickey.location} (a PEM or JWK file, or a JWKS URL) or {@code
 * mp.jwt.verify.publickey} — and refuses to start without one, naming both settings, rather than
 * answering every request 401. Off, every caller holds every role ({@link OpenWhenAuthOff}); the
 * service says so once at start.
 */
@Startup
@ApplicationScoped
public class AuthSettings {
    private static final Logger LOG = Logger.getLogger(AuthSettings.class);

    private final boolean enabled;

    AuthSettings(@ConfigProperty(name = "alice.auth.enabled", defaultValue = "true") boolean enabled,
            @ConfigProperty(name = "mp.jwt.verify.publickey.location") Optional<String> keyLocation,
            @ConfigProperty(name = "mp.jwt.verify.publickey") Optional<String> key) {
        this.enabled = enabled;
        check(enabled, keyLocation, key);
        if (enabled) {
            LOG.infof("REST doors need a bearer token signed by the key at %s", keyLocation.orElse("mp.jwt.verify.publickey"));
        } else {
            LOG.warn("alice.auth.enabled=false: every REST caller holds every role (for a single trusted host only)");
        }
    }

    static void check(boolean enabled, Optional<String> keyLocation, Optional<String> key) {
        if (enabled && keyLocation.filter(s -> !s.isBlank()).isEmpty() && key.filter(s -> !s.isBlank()).isEmpty()) {
            throw new IllegalStateException("alice.auth.enabled=true but no key to verify bearer tokens with: set mp.jwt.verify.publickey.location "
                    + "(a PEM or JWK file, or a JWKS URL) or mp.jwt.verify.publickey, or alice.auth.enabled=false for a single trusted host");
        }
    }

    public boolean enabled() {
        return enabled;
    }
}
