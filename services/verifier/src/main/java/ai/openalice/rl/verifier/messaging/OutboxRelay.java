package ai.openalice.rl.verifier.messaging;

import ai.openalice.rl.events.Topic;
import ai.openalice.rl.servicekit.Outboxes;
import ai.openalice.rl.verifier.repository.VerificationRepository;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.reactive.messaging.MutinyEmitter;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import org.eclipse.microprofile.reactive.messaging.Channel;

/** Relays the verifier's outbox ({@code verifier.outbox}) to Kafka; see {@link ai.openalice.rl.servicekit.OutboxRelay}. */
@ApplicationScoped
public class OutboxRelay {
    @Inject
    Outboxes outboxes;

    @Inject
    @Channel(Channels.VERIFICATIONS_COMPLETED)
    MutinyEmitter<byte[]> verifications;

    private ai.openalice.rl.servicekit.OutboxRelay relay;

    @PostConstruct
    void init() {
        relay = outboxes.relay(VerificationRepository.OUTBOX,
                Map.of(Topic.VERIFICATIONS_COMPLETED, verifications));
    }

    @Scheduled(every = "${verifier.outbox-interval}", delayed = "1s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void relay() {
        relay.relay();
    }
}
