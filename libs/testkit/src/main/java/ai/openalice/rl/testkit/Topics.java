package ai.openalice.rl.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * The one way a test reads what a service wrote to a topic: from the beginning, by a consumer of
 * its own (no group), until enough records are there or the wait is over — then, when asked to
 * settle, a little longer, so that a duplicate that should not be there has time to show.
 */
public final class Topics {
    private static final Duration POLL = Duration.ofMillis(300);

    private Topics() {}

    /** Every record of {@code topic} until there are {@code atLeast} or {@code wait} is over (the topic may not exist yet). */
    public static List<ConsumerRecord<String, byte[]>> read(String topic, int atLeast, Duration wait) {
        return read(topic, atLeast, wait, Duration.ZERO, r -> true);
    }

    /**
     * The records of {@code topic} that {@code keep} keeps, read until there are {@code atLeast} of
     * them or {@code wait} is over, and then for {@code settle} more. Fewer than {@code atLeast} is
     * not an error here: the caller's assertion names what is missing.
     */
    public static List<ConsumerRecord<String, byte[]>> read(String topic, int atLeast, Duration wait, Duration settle,
            Predicate<ConsumerRecord<String, byte[]>> keep) {
        var out = new ArrayList<ConsumerRecord<String, byte[]>>();
        long deadline = System.nanoTime() + wait.toNanos();
        try (var c = new KafkaConsumer<String, byte[]>(TestStack.consumerProperties())) {
            var parts = TestStack.awaitPartitions(c, topic, wait);
            c.assign(parts);
            c.seekToBeginning(parts);
            while (out.size() < atLeast && System.nanoTime() < deadline) {
                c.poll(POLL).forEach(r -> add(out, r, keep));
            }
            long settled = System.nanoTime() + settle.toNanos();
            while (System.nanoTime() < settled) {
                c.poll(POLL).forEach(r -> add(out, r, keep));
            }
        }
        return out;
    }

    private static void add(List<ConsumerRecord<String, byte[]>> out, ConsumerRecord<String, byte[]> r, Predicate<ConsumerRecord<String, byte[]>> keep) {
        if (keep.test(r)) {
            out.add(r);
        }
    }
}
