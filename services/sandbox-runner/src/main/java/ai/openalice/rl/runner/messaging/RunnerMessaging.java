package ai.openalice.rl.runner.messaging;

import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.runner.repository.LeaseRepository;
import ai.openalice.rl.runner.service.EpisodeService;
import ai.openalice.rl.servicekit.Inbox;
import ai.openalice.rl.servicekit.OutboxRelay;
import ai.openalice.rl.servicekit.Outboxes;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.annotations.Blocking;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.jboss.logging.Logger;

/** The runner's Kafka side: rollouts in (bounded pool), rollouts out (outbox), checkpoints in (the Tinker sampler's weights), lease heartbeats, graceful shutdown. */
@ApplicationScoped
public class RunnerMessaging {
    private static final Logger LOG = Logger.getLogger(RunnerMessaging.class);

    @Inject
    EpisodeService episodes;

    @Inject
    LeaseRepository leases;

    @Inject
    Outboxes outboxes;

    @Inject
    Inbox inbox;

    @Inject
    @Channel(Channels.ROLLOUTS_COMPLETED)
    MutinyEmitter<byte[]> completed;

    private OutboxRelay relay;

    @PostConstruct
    void init() {
        relay = outboxes.relay(LeaseRepository.OUTBOX, Map.of(Topic.ROLLOUTS_COMPLETED, completed));
    }

    /**
     * One episode on the {@code episodes} pool ({@code RUNNER_CONCURRENCY} at a time); the offset is
     * committed once it is acknowledged. A failure goes to the dead-letter topic with its reason,
     * except while the runner shuts down: then the episode failed because the service is closing (its
     * lease is handed back, its database pool closed), and the record is neither acknowledged nor
     * refused, so its offset stays uncommitted and Kafka gives it to the next runner.
     */
    @Incoming(Channels.ROLLOUTS_REQUESTED)
    @Blocking(value = "episodes", ordered = false)
    public CompletionStage<Void> rollout(Message<byte[]> request) {
        try {
            episodes.run(request.getPayload());
        } catch (RuntimeException e) {
            if (episodes.stopping()) {
                LOG.infof("a rollout left for the next runner (this one is shutting down): %s", e.getMessage());
                return new CompletableFuture<>();
            }
            return request.nack(e);
        }
        return request.ack();
    }

    /** Each checkpoint announced: with {@code runner.policy=tinker}, its sampler weights are what the next completions are drawn from. */
    @Incoming(Channels.CHECKPOINTS_PUBLISHED)
    public void checkpoint(byte[] value) {
        inbox.<CheckpointPublished>read(Topic.CHECKPOINTS_PUBLISHED, value).ifPresent(e -> episodes.checkpoint(e.payload()));
    }

    @Scheduled(every = "1s", delayed = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void relay() {
        relay.relay();
    }

    @Scheduled(every = "${runner.heartbeat-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void heartbeat() {
        leases.heartbeat(episodes.owner(), episodes.inFlight());
    }

    @Scheduled(every = "${runner.prune-every}", delayed = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void pruneArtifacts() {
        episodes.pruneArtifacts();
    }

    void onStop(@Observes ShutdownEvent ev) {
        episodes.stop();
    }
}
