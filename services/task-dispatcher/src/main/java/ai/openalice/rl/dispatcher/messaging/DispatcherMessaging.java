package ai.openalice.rl.dispatcher.messaging;

import ai.openalice.rl.dispatcher.repository.GroupStore;
import ai.openalice.rl.dispatcher.service.IntakeService;
import ai.openalice.rl.dispatcher.service.RolloutLifecycle;
import ai.openalice.rl.dispatcher.service.Scheduler;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.EventPayload;
import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.VerificationCompleted;
import ai.openalice.rl.servicekit.Inbox;
import ai.openalice.rl.servicekit.OutboxRelay;
import ai.openalice.rl.servicekit.Outboxes;
import ai.openalice.rl.servicekit.WaitsOutDatabaseOutages;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.annotations.Blocking;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * The dispatcher's Kafka side: task intake, the downstream events that drive the rollouts' state,
 * checkpoints (policy version, staleness), the scheduling tick and the outbox relay. An event the
 * dispatcher cannot read is logged and counted; it is the producer's own dead-letter topic that
 * keeps it (the dispatcher only observes these topics).
 */
@ApplicationScoped
public class DispatcherMessaging {
    private static final Logger LOG = Logger.getLogger(DispatcherMessaging.class);

    @Inject
    Inbox inbox;

    @Inject
    IntakeService intake;

    @Inject
    RolloutLifecycle lifecycle;

    @Inject
    Scheduler scheduler;

    @Inject
    Outboxes outboxes;


    @Inject
    @Channel(Channels.ROLLOUTS_REQUESTED)
    MutinyEmitter<byte[]> requested;

    @Inject
    @Channel(Channels.TASKS_REJECTED)
    MutinyEmitter<byte[]> rejected;

    @Inject
    @Channel(Channels.TASKS_ACCEPTED_OUT)
    MutinyEmitter<byte[]> accepted;

    private OutboxRelay relay;

    @PostConstruct
    void init() {
        relay = outboxes.relay(GroupStore.OUTBOX, Map.of(Topic.ROLLOUTS_REQUESTED, requested, Topic.TASKS_REJECTED, rejected,
                Topic.TASKS_ACCEPTED, accepted));
    }

    @Incoming(Channels.TASKS_SUBMITTED)
    @Blocking
    @WaitsOutDatabaseOutages
    public void tasks(ConsumerRecords<String, byte[]> records) {
        var list = new ArrayList<ConsumerRecord<String, byte[]>>();
        records.forEach(list::add);
        intake.fromKafka(list);
    }

    @Incoming(Channels.ROLLOUTS_COMPLETED)
    @Blocking
    @WaitsOutDatabaseOutages
    public void completed(byte[] value) {
        this.<RolloutCompleted>read(Topic.ROLLOUTS_COMPLETED, value, lifecycle::completed);
    }

    @Incoming(Channels.VERIFICATIONS_COMPLETED)
    @Blocking
    @WaitsOutDatabaseOutages
    public void verified(byte[] value) {
        this.<VerificationCompleted>read(Topic.VERIFICATIONS_COMPLETED, value, lifecycle::verified);
    }

    @Incoming(Channels.REWARDS_SCORED)
    @Blocking
    @WaitsOutDatabaseOutages
    public void scored(byte[] value) {
        this.<RewardScored>read(Topic.REWARDS_SCORED, value, lifecycle::scored);
    }

    @Incoming(Channels.CHECKPOINTS_PUBLISHED)
    @Blocking
    @WaitsOutDatabaseOutages
    public void checkpoint(byte[] value) {
        this.<CheckpointPublished>read(Topic.CHECKPOINTS_PUBLISHED, value, lifecycle::checkpoint);
    }

    private <T extends EventPayload> void read(Topic topic, byte[] value, Consumer<T> handler) {
        inbox.<T>read(topic, value).ifPresent(in -> handler.accept(in.payload()));
    }

    @Scheduled(every = "${dispatcher.tick:1s}", delayed = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void tick() {
        try {
            int groups;
            do { // a full pass means more capacity may be waiting: go on, sending as we go
                groups = scheduler.tick();
                relay.relay();
            } while (groups >= scheduler.groupsPerPass());
        } catch (RuntimeException e) {
            LOG.warnf(e, "scheduling pass failed (next tick retries)");
        }
        relay.relay();
    }

    @Scheduled(every = "1s", delayed = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void relay() {
        relay.relay();
    }
}
