package ai.openalice.rl.inference.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class NewestCheckpointFirstTest {
    @Test
    void aStartingReplicaReadsTheNewestCheckpointAndNothingOnAnEmptyTopic() {
        var published = new TopicPartition("checkpoints.published", 0);
        var empty = new TopicPartition("checkpoints.published", 1);
        try (var consumer = new MockConsumer<String, byte[]>(AutoOffsetResetStrategy.LATEST.name())) {
            consumer.assign(List.of(published, empty));
            consumer.updateEndOffsets(Map.of(published, 7L, empty, 0L));
            consumer.updateBeginningOffsets(Map.of(published, 0L, empty, 0L));
            new NewestCheckpointFirst().onPartitionsAssigned(consumer, List.of(published, empty));
            assertEquals(6L, consumer.position(published), "records 0..6 were published: the last, 6, is read first");
            assertEquals(0L, consumer.position(empty), "an empty partition: from its end, as before");
        }
    }
}
