package ai.openalice.rl.verifier.service;

import ai.openalice.rl.servicekit.Retention;
import ai.openalice.rl.verifier.config.VerifierConfig;
import ai.openalice.rl.verifier.repository.VerificationRepository;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/** Deletes finished verifications past {@code verifier.keep-verifications}, hourly, 1,000 rows per statement; counted in {@code verifier_verifications_pruned_total}. */
@ApplicationScoped
public class VerificationRetention {
    private static final Logger LOG = Logger.getLogger(VerificationRetention.class);
    static final int BATCH = 1000;

    @Inject
    VerificationRepository repository;

    @Inject
    VerifierConfig config;

    @Inject
    MeterRegistry metrics;

    @Inject
    Pool pool;

    @Scheduled(every = "${verifier.prune-every}", delayed = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void prune() {
        try {
            long total = Retention.drain(pool, BATCH, Retention.UNBOUNDED,
                    b -> repository.pruneFinished(config.keepVerifications(), b), "verifier.verifications");
            metrics.counter("verifier_verifications_pruned_total").increment(total);
            if (total > 0) {
                LOG.infof("deleted %d verification(s) finished more than %s ago", total, config.keepVerifications());
            }
        } catch (RuntimeException e) {
            LOG.warnf("verification retention: %s; trying again at the next prune (verifier.prune-every)", e.getMessage());
        }
    }
}
