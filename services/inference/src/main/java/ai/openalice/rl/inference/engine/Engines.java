package ai.openalice.rl.inference.engine;

import ai.openalice.rl.inference.config.InferenceConfig;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/** The external engine of {@code inference.engine}, if any. */
@ApplicationScoped
public class Engines {
    @Inject
    InferenceConfig config;

    private EngineGateway gateway;

    @PostConstruct
    void init() {
        if (config.engine() == InferenceConfig.Engine.LOCAL) {
            return;
        }
        String url = config.engineUrl().orElseThrow(() -> new IllegalStateException("inference.engine=" + config.engine().name().toLowerCase()
                + " needs inference.engine-url"));
        gateway = new EngineGateway(open(config.engine(), URI.create(url), config.engineApiKey().orElse(null)), config.engineKeepAdapters());
    }

    static ServingEngine open(InferenceConfig.Engine kind, URI url, String apiKey) {
        var http = new EngineHttp(url, apiKey, Duration.ofMinutes(10));
        return kind == InferenceConfig.Engine.SGLANG ? new SglangEngine(http) : new VllmEngine(http);
    }

    /** The gateway to the external engine; empty when this service samples itself. */
    public Optional<EngineGateway> gateway() {
        return Optional.ofNullable(gateway);
    }
}
