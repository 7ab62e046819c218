package ai.openalice.rl.verifier.service;

import ai.openalice.rl.artifacts.ArtifactStores;
import ai.openalice.rl.events.ArtifactRef;
import ai.openalice.rl.servicekit.ArtifactsConfig;
import ai.openalice.rl.servicekit.BoundedRetry;
import ai.openalice.rl.verifier.config.VerifierConfig;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * The test output of each verdict in the artifact store ({@code <rolloutId>.log} in
 * {@code verifier.artifact-dir}, or under {@code logs/} in {@code alice.artifacts.bucket}), named by
 * {@code VerificationCompleted.log}. A log is evidence, not the verdict: a store that stays away
 * through a bounded retry costs the event its log (counted), never the verdict.
 */
@ApplicationScoped
public class TestLogs {
    private static final Logger LOG = Logger.getLogger(TestLogs.class);

    /** 4 attempts, 0.5 s doubling: a store's hiccup, not an outage (the verdict does not wait for one). */
    static final BoundedRetry WRITE_RETRY = new BoundedRetry(4, Duration.ofMillis(500));

    @Inject
    VerifierConfig config;

    @Inject
    ArtifactsConfig artifactsConfig;

    @Inject
    MeterRegistry metrics;

    private ArtifactStores.Routed store;

    @PostConstruct
    void init() {
        store = ArtifactsConfig.open(artifactsConfig, "logs", config.artifactDir());
    }

    @PreDestroy
    void close() {
        store.close();
    }

    /** Stores the test output of {@code rolloutId}'s verdict; empty when there was none, or the store refused it. */
    public Optional<ArtifactRef> write(UUID rolloutId, String log) {
        if (log == null || log.isBlank()) {
            return Optional.empty();
        }
        byte[] bytes = log.getBytes(StandardCharsets.UTF_8);
        try {
            return Optional.of(WRITE_RETRY.until(() -> {
                try {
                    return store.write(rolloutId + ".log", bytes);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, written -> true));
        } catch (RuntimeException e) {
            metrics.counter("verifier_log_write_failures_total").increment();
            LOG.warnf("the test log of %s was not stored (%s); its verdict goes without it", rolloutId, e.getMessage());
            return Optional.empty();
        }
    }

    /** Deletes the logs written more than {@code keep} ago; how many. */
    public long prune(Duration keep) throws IOException {
        return store.prune("", keep, Instant.now()).artifacts();
    }
}
