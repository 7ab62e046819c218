package ai.openalice.rl.trainer.service;

import ai.openalice.rl.servicekit.Retention;
import ai.openalice.rl.trainer.config.TrainerConfig;
import ai.openalice.rl.trainer.repository.TrainerStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Instant;
import org.jboss.logging.Logger;

/**
 * Bounds the trainer's database: every {@code trainer.prune-every}, the trajectories of samples
 * trained more than {@code trainer.keep-trajectory-steps} committed steps ago, and of groups
 * dropped longer than {@code trainer.keep-dropped-trajectories} ago, are dropped in batches; each
 * sample keeps its ledger row. A trajectory is the bulk of a sample (a 10-minute run held 4.9 MB of
 * them), and once its step is committed no step reads it again.
 */
@ApplicationScoped
public class TrajectoryRetention {
    private static final Logger LOG = Logger.getLogger(TrajectoryRetention.class);
    static final int BATCH = 1000;
    /** Batches per run at most: the rest waits for the next run rather than hold the database. */
    static final int MAX_BATCHES = 20;

    @Inject
    TrainerStore store;

    @Inject
    TrainerConfig config;

    @Inject
    Pool pool;

    private final Counter dropped;

    @Inject
    public TrajectoryRetention(MeterRegistry registry) {
        this.dropped = Counter.builder("trainer_trajectories_dropped").description("trajectories dropped by retention (their ledger rows stay)")
                .register(registry);
    }

    @Scheduled(every = "${trainer.prune-every}", delayed = "30s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void prune() {
        try {
            int n = pruneOnce(Instant.now());
            if (n > 0) {
                LOG.debugf("retention: %d trajectories dropped", n);
            }
        } catch (RuntimeException e) {
            LOG.warnf("retention: dropping old trajectories failed (retried at the next run): %s", e.getMessage());
        }
    }

    /** One run: how many trajectories were dropped. */
    public int pruneOnce(Instant now) {
        long committed = store.latest().map(TrainerStore.Registered::step).orElse(0L);
        long upTo = committed - config.keepTrajectorySteps();
        Instant droppedBefore = now.minus(config.keepDroppedTrajectories());
        // the dropped trajectories' space, reused
        long total = Retention.drain(pool, BATCH, MAX_BATCHES, b -> store.dropTrajectories(upTo, droppedBefore, b), "trainer.samples");
        dropped.increment(total);
        return (int) total;
    }
}
