package ai.openalice.rl.servicekit.auth;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.PropertiesConfigSource;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * With {@code alice.auth.enabled=false}, smallrye-jwt looks for tokens in a header no client sends,
 * so that a bearer token sent anyway is ignored rather than refused: an OpenAI client library always
 * sends an API key, and a service with auth off must serve it as it serves any other caller. (The
 * JWT mechanism is fixed at build time; where it reads the token from, {@code mp.jwt.token.header},
 * is not.) Registered in {@code META-INF/services}; above application.properties, below the
 * environment and system properties.
 */
public class AuthOffConfig implements ConfigSourceFactory {
    static final String UNUSED_HEADER = "X-Alice-Auth-Off";

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        var enabled = context.getValue("alice.auth.enabled");
        if (enabled != null && "false".equalsIgnoreCase(enabled.getValue())) {
            return List.of(new PropertiesConfigSource(Map.of("mp.jwt.token.header", UNUSED_HEADER), "alice-rl: auth off", 275));
        }
        return List.of();
    }
}
