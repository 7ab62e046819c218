package ai.openalice.rl.e2e;

import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.EventPayload;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.testkit.TestStack;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/** Reads a topic of the run from its beginning for the first event that matches, within a wait. */
final class TopicScan {
    private TopicScan() {}

    /** The first payload on {@code topic} (with the run's {@code suffix}) that {@code match} accepts, or empty when none came within {@code wait}. */
    static <T extends EventPayload> Optional<T> first(Topic topic, String suffix, Duration wait, Predicate<T> match) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        try (var c = new KafkaConsumer<String, byte[]>(TestStack.consumerProperties())) {
            var parts = TestStack.awaitPartitions(c, topic.topicName() + suffix, wait);
            c.assign(parts);
            c.seekToBeginning(parts);
            while (System.nanoTime() < deadline) {
                for (var rec : c.poll(Duration.ofMillis(500))) {
                    T p = ((EventCodec.Decoded.Ok<T>) EventCodec.<T>decode(topic, rec.value())).envelope().payload();
                    if (match.test(p)) {
                        return Optional.of(p);
                    }
                }
            }
        }
        return Optional.empty();
    }
}
