package ai.openalice.rl.verifier.messaging;

import ai.openalice.rl.verifier.config.VerifierConfig;
import ai.openalice.rl.verifier.repository.VerificationRepository;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.jboss.logging.Logger;

/** Deletes finished verifications past {@code verifier.keep-verifications}, hourly, 1,000 rows per statement; counted in {@code verifier_verifications_pruned_total}. */
@ApplicationScoped
public class Retention {
    private static final Logger LOG = Logger.getLogger(Retention.class);
    static final int BATCH = 1000;

    @Inject
    VerificationRepository repository;

    @Inject
    VerifierConfig config;

    @Inject
    MeterRegistry metrics;

    @Inject
    io.vertx.mutiny.sqlclient.Pool pool;

    @Scheduled(every = "${verifier.prune-every}", delayed = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void prune() {
        try {
            long total = 0;
            int n;
            do {
                n = repository.pruneFinished(config.keepVerifications(), BATCH);
                total += n;
            } while (n == BATCH);
            metrics.counter("verifier_verifications_pruned_total").increment(total);
            if (total > 0) {
                ai.openalice.rl.servicekit.Vacuum.table(pool, "verifier.verifications");
            }
            if (total > 0) {
                LOG.infof("deleted %d verification(s) finished more than %s ago", total, config.keepVerifications());
            }
        } catch (RuntimeException e) {
            LOG.warnf("verification retention: %s; trying again at the next prune (verifier.prune-every)", e.getMessage());
        }
    }
}
