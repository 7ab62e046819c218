package ai.openalice.rl.servicekit.auth;

import ai.openalice.rl.auth.Roles;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.SecurityIdentityAugmentor;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.HashSet;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * With {@code alice.auth.enabled=false}, the caller without a token holds every role under the
 * name {@value #NAME}, so that the same {@code @RolesAllowed} doors stay open on a single trusted
 * host; with auth on (the default) an identity passes through unchanged.
 */
@ApplicationScoped
public class OpenWhenAuthOff implements SecurityIdentityAugmentor {
    public static final String NAME = "unauthenticated";

    @ConfigProperty(name = "alice.auth.enabled", defaultValue = "true")
    boolean enabled;

    @Override
    public Uni<SecurityIdentity> augment(SecurityIdentity identity, AuthenticationRequestContext context) {
        if (enabled || !identity.isAnonymous()) {
            return Uni.createFrom().item(identity);
        }
        return Uni.createFrom().item(QuarkusSecurityIdentity.builder().setPrincipal(new QuarkusPrincipal(NAME)).addRoles(new HashSet<>(Roles.ALL))
                .setAnonymous(false).build());
    }
}
