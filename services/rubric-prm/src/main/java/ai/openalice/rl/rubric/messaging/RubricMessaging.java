package ai.openalice.rl.rubric.messaging;

import ai.openalice.rl.events.Topic;
import ai.openalice.rl.rubric.repository.RubricStore;
import ai.openalice.rl.rubric.service.ScoringService;
import ai.openalice.rl.servicekit.OutboxRelay;
import ai.openalice.rl.servicekit.Outboxes;
import ai.openalice.rl.servicekit.WaitsOutDatabaseOutages;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.reactive.messaging.MutinyEmitter;
import io.smallrye.reactive.messaging.annotations.Blocking;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/** rubric-prm's Kafka side: tasks remembered, verdicts scored, rewards relayed from the outbox. */
@ApplicationScoped
public class RubricMessaging {
    @Inject
    ScoringService scoring;

    @Inject
    Outboxes outboxes;

    @Inject
    @Channel(Channels.REWARDS_SCORED)
    MutinyEmitter<byte[]> rewards;

    private OutboxRelay relay;

    @PostConstruct
    void init() {
        relay = outboxes.relay(RubricStore.OUTBOX, Map.of(Topic.REWARDS_SCORED, rewards));
    }

    /** The dispatcher's task versions; a malformed record goes to the dead-letter topic. */
    @Incoming(Channels.TASKS_ACCEPTED)
    @Blocking
    @WaitsOutDatabaseOutages
    public void task(byte[] value) {
        scoring.rememberTask(value);
    }

    @Incoming(Channels.VERIFICATIONS_COMPLETED)
    @Blocking(ordered = false)
    @WaitsOutDatabaseOutages
    public void verification(byte[] value) {
        scoring.score(value);
    }

    @Scheduled(every = "1s", delayed = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void relay() {
        relay.relay();
    }
}
