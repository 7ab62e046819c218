package ai.openalice.rl.inference.messaging;

import io.smallrye.common.annotation.Identifier;
import io.smallrye.reactive.messaging.kafka.KafkaConsumerRebalanceListener;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Collection;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.jboss.logging.Logger;

/**
 * Where a starting replica reads checkpoints.published from: the newest record on (its group is
 * its own, so it has no committed offset). From the end only, a replica started after the last
 * checkpoint serves nothing until the next one, and that one may never come: with no policy the
 * runners' episodes all fail, and the trainer gets nothing to step on (a pod restarted, a helm
 * upgrade, a trainer that published v0 before inference was up).
 */
@ApplicationScoped
@Identifier(NewestCheckpointFirst.NAME)
public class NewestCheckpointFirst implements KafkaConsumerRebalanceListener {
    static final String NAME = "newest-checkpoint-first";
    private static final Logger LOG = Logger.getLogger(NewestCheckpointFirst.class);

    @Override
    public void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        consumer.endOffsets(partitions).forEach((partition, end) -> {
            if (end > 0) {
                consumer.seek(partition, end - 1);
                LOG.infof("%s: from its newest checkpoint on (offset %d)", partition, end - 1);
            }
        });
    }
}
