package ai.openalice.rl.verifier.messaging;

import ai.openalice.rl.servicekit.WaitsOutDatabaseOutages;
import ai.openalice.rl.verifier.service.VerificationService;
import io.smallrye.reactive.messaging.annotations.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/** The verifier's Kafka inputs; the work is in {@link VerificationService}. */
@ApplicationScoped
public class Consumers {
    @Inject
    VerificationService service;

    /** The task versions the dispatcher accepted, to know each rollout's hidden tests; a malformed record goes to the dead-letter topic. */
    @Incoming(Channels.TASKS_ACCEPTED)
    @Blocking
    @WaitsOutDatabaseOutages
    public void task(byte[] value) {
        service.rememberTask(value);
    }

    /**
     * Verifies one rollout on the bounded {@code verify} worker pool. A malformed event throws,
     * which sends it to the dead-letter topic with the reason.
     */
    @Incoming(Channels.ROLLOUTS_COMPLETED)
    @Blocking(value = "verify", ordered = false)
    @WaitsOutDatabaseOutages
    public void rollout(byte[] value) {
        service.verify(value);
    }
}
