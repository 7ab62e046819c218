package ai.openalice.rl.inference.messaging;

import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.inference.engine.EngineException;
import ai.openalice.rl.inference.engine.EngineGateway;
import ai.openalice.rl.inference.engine.Engines;
import ai.openalice.rl.inference.service.CheckpointFetch;
import ai.openalice.rl.inference.service.ModelRegistry;
import ai.openalice.rl.servicekit.BoundedRetry;
import ai.openalice.rl.servicekit.Inbox;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.reactive.messaging.annotations.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/** Loads every checkpoint announced on checkpoints.published (a shared folder, or fetched from the bucket). */
@ApplicationScoped
public class CheckpointConsumer {
    private static final Logger LOG = Logger.getLogger(CheckpointConsumer.class);

    @Inject
    ModelRegistry registry;

    @Inject
    Inbox inbox;

    @Inject
    Engines engines;

    @Inject
    MeterRegistry metrics;

    @Inject
    CheckpointFetch fetch;

    /** A bucket that is away is waited for about a minute (5 attempts, 2 s doubling) before the version is passed over. */
    static final BoundedRetry FETCH_RETRY = new BoundedRetry(5, Duration.ofSeconds(2));

    @Incoming(Channels.CHECKPOINTS_PUBLISHED)
    @Blocking
    public void checkpoint(byte[] value) {
        var read = inbox.<CheckpointPublished>read(Topic.CHECKPOINTS_PUBLISHED, value);
        if (read.isEmpty()) {
            return;
        }
        CheckpointPublished c = read.get().payload();
        Path dir;
        try {
            dir = FETCH_RETRY.until(() -> {
                try {
                    return fetch.folder(c);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }, fetched -> true);
        } catch (RuntimeException e) {
            metrics.counter("inference_checkpoint_fetch_failures_total").increment();
            LOG.warnf("checkpoint v%d: cannot have its files from %s (%s); still serving the current version", c.policyVersion(), c.manifest().uri(),
                    e.getMessage());
            return;
        }
        if (engines.gateway().isPresent()) {
            toEngine(engines.gateway().get(), c.policyVersion(), dir);
            return;
        }
        if (c.onnx() == null) {
            metrics.counter("inference_checkpoints_unservable_total").increment();
            LOG.warnf("checkpoint v%d has no ONNX graph (written with trainer.export-onnx=false, for an external engine), and this service"
                    + " serves in process (no inference.engine): still serving the current version; set trainer.export-onnx=true", c.policyVersion());
            return;
        }
        var outcome = registry.load(dir, c.onnx().sha256());
        LOG.infof("checkpoint v%d: %s", c.policyVersion(), outcome);
    }

    /**
     * Loads the checkpoint into the external engine, trying an unreachable engine again (a restart)
     * for about a minute; a refusal is logged and counted, and the engine keeps serving the last
     * version it loaded (the runner's rollouts say which).
     */
    private void toEngine(EngineGateway gateway, long version, Path dir) {
        long pause = 2000;
        for (int attempt = 1; ; attempt++) {
            long start = System.nanoTime();
            try {
                String outcome = gateway.load(version, dir);
                metrics.timer("inference_engine_load_seconds").record(Duration.ofNanos(System.nanoTime() - start));
                LOG.infof("checkpoint v%d: %s", version, outcome);
                return;
            } catch (EngineException e) {
                if (!e.unavailable() || attempt == 5) {
                    metrics.counter("inference_engine_load_failures_total").increment();
                    LOG.warnf("checkpoint v%d not loaded into %s: %s; it keeps serving v%s", version, gateway.engine().name(), e.getMessage(),
                            gateway.versions().isEmpty() ? "-" : gateway.versions().getLast());
                    return;
                }
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
                pause *= 2;
            }
        }
    }
}
