package ai.openalice.rl.inference.messaging;

import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.inference.service.ModelRegistry;
import io.smallrye.reactive.messaging.annotations.Blocking;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.nio.file.Path;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/** Loads every checkpoint announced on checkpoints.published (a local folder in the artifact store). */
@ApplicationScoped
public class CheckpointConsumer {
    private static final Logger LOG = Logger.getLogger(CheckpointConsumer.class);

    @Inject
    ModelRegistry registry;

    @Inject
    ai.openalice.rl.servicekit.Inbox inbox;

    @Incoming("checkpoints-published")
    @Blocking
    public void checkpoint(byte[] value) {
        var read = inbox.<CheckpointPublished>read(Topic.CHECKPOINTS_PUBLISHED, value);
        if (read.isEmpty()) {
            return;
        }
        CheckpointPublished c = read.get().payload();
        Path onnx;
        try {
            onnx = Path.of(URI.create(c.onnx().uri()));
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            LOG.warnf("checkpoint v%d: %s is not a local file URI (%s); still serving the current version", c.policyVersion(),
                    c.onnx().uri(), e.getMessage());
            return;
        }
        var outcome = registry.load(onnx.getParent(), c.onnx().sha256());
        LOG.infof("checkpoint v%d: %s", c.policyVersion(), outcome);
    }
}
