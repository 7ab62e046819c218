package ai.openalice.rl.trainer.messaging;

import ai.openalice.rl.artifacts.ArtifactStore;
import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.servicekit.ArtifactsConfig;
import ai.openalice.rl.servicekit.Inbox;
import ai.openalice.rl.servicekit.OutboxRelay;
import ai.openalice.rl.servicekit.Outboxes;
import ai.openalice.rl.servicekit.WaitsOutDatabaseOutages;
import ai.openalice.rl.trainer.config.TrainerConfig;
import ai.openalice.rl.trainer.repository.TrainerStore;
import ai.openalice.rl.trainer.service.RunTracking;
import ai.openalice.rl.trainer.service.TrainerMeters;
import ai.openalice.rl.trainer.service.TrainingLoop;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.annotations.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.Map;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * The trainer's wiring: scored rollouts kept as they arrive, with their header's mode and
 * temperature (an unreadable one goes to {@code rewards.scored.dlq} with the reason), the training loop on its own thread, the outbox relayed to checkpoints.published and
 * training.metrics.
 */
@ApplicationScoped
public class TrainerService {
    private static final Logger LOG = Logger.getLogger(TrainerService.class);

    @Inject
    Inbox inbox;

    @Inject
    TrainerStore store;

    @Inject
    TrainerConfig config;

    @Inject
    MeterRegistry metrics;

    @Inject
    Outboxes outboxes;

    @Inject
    @Channel(Channels.CHECKPOINTS_PUBLISHED)
    MutinyEmitter<byte[]> checkpoints;

    @Inject
    @Channel(Channels.TRAINING_METRICS)
    MutinyEmitter<byte[]> trainingMetrics;

    @Inject
    ArtifactsConfig artifacts;

    private OutboxRelay relay;
    private RunTracking tracking;
    private ArtifactStore trajectories;
    private TrainingLoop loop;
    private Thread thread;

    void start(@Observes StartupEvent e) {
        System.setProperty("ai.djl.pytorch.num_threads", Integer.toString(config.threads()));
        System.setProperty("ai.djl.pytorch.num_interop_threads", "1");
        relay = outboxes.relay(TrainerStore.OUTBOX, Map.of(Topic.CHECKPOINTS_PUBLISHED, checkpoints, Topic.TRAINING_METRICS, trainingMetrics));
        tracking = RunTracking.of(config, store);
        trajectories = ArtifactsConfig.reader(artifacts);
        loop = new TrainingLoop(store, config, new TrainerMeters(metrics), trajectories,
                artifacts.bucket().map(b -> ArtifactsConfig.open(artifacts, "checkpoints", config.artifactDir())), tracking);
        if (config.enabled()) {
            loop.start();
            thread = Thread.ofPlatform().name("training-loop").start(loop);
        }
    }

    void stop(@Observes ShutdownEvent e) throws InterruptedException {
        if (loop != null) {
            loop.stop();
        }
        if (thread != null) {
            thread.join(60_000);
        }
        if (tracking != null) {
            tracking.close();
        }
    }

    public TrainingLoop loop() {
        return loop;
    }

    public RunTracking tracking() {
        return tracking;
    }

    @Incoming(Channels.REWARDS_SCORED)
    @Blocking
    @WaitsOutDatabaseOutages
    public void scored(byte[] value) {
        inbox.<RewardScored>read(Topic.REWARDS_SCORED, value).ifPresent(in -> {
            if (!store.add(in.payload())) {
                metrics.counter("trainer_late_samples_total").increment();
                LOG.debugf("%s arrived after its group was settled", in.payload().rolloutId());
            }
            // every scored episode is a trace, trained on or not (evaluations, dropped groups); a redelivery is the same trace again
            tracking.episode(in.payload(), in.occurredAt(), trajectories);
        });
    }

    @Scheduled(every = "1s", delayed = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void relay() {
        relay.relay();
    }
}
