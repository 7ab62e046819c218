package ai.openalice.rl.e2e;

import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.EventPayload;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.testkit.Topics;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Reads a topic of the run from its beginning for the first event that matches, within a wait. */
final class TopicScan {
    private TopicScan() {}

    /** The first payload on {@code topic} (with the run's {@code suffix}) that {@code match} accepts, or empty when none came within {@code wait}. */
    static <T extends EventPayload> Optional<T> first(Topic topic, String suffix, Duration wait, Predicate<T> match) {
        var found = Topics.read(topic.topicName() + suffix, 1, wait, Duration.ZERO, r -> match.test(TopicScan.<T>payload(topic, r)));
        return found.stream().findFirst().map(r -> TopicScan.<T>payload(topic, r));
    }

    @SuppressWarnings("unchecked")
    private static <T extends EventPayload> T payload(Topic topic, ConsumerRecord<String, byte[]> r) {
        return ((EventCodec.Decoded.Ok<T>) EventCodec.<T>decode(topic, r.value())).envelope().payload();
    }
}
