package ai.openalice.rl.verifier.service;

import ai.openalice.rl.servicekit.Retention;
import ai.openalice.rl.verifier.config.VerifierConfig;
import ai.openalice.rl.verifier.repository.VerificationRepository;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import org.jboss.logging.Logger;

/**
 * Deletes finished verifications past {@code verifier.keep-verifications}, hourly, 1,000 rows per
 * statement, and the test logs as old; counted in {@code verifier_verifications_pruned_total} and
 * {@code verifier_logs_pruned_total}.
 */
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

    @Inject
    TestLogs logs;

    @Scheduled(every = "${verifier.prune-every}", delayed = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void prune() {
        try {
            long total = Retention.drain(pool, BATCH, Retention.UNBOUNDED,
                    b -> repository.pruneFinished(config.keepVerifications(), b), "verifier.verifications");
            metrics.counter("verifier_verifications_pruned_total").increment(total);
            long logs = this.logs.prune(config.keepVerifications());
            metrics.counter("verifier_logs_pruned_total").increment(logs);
            if (total + logs > 0) {
                LOG.infof("deleted %d verification(s) finished and %d test log(s) written more than %s ago", total, logs, config.keepVerifications());
            }
        } catch (IOException | RuntimeException e) {
            LOG.warnf("verification retention: %s; trying again at the next prune (verifier.prune-every)", e.getMessage());
        }
    }
}
