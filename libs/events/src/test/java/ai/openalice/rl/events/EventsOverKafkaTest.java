package ai.openalice.rl.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Waits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Every event travels through the real broker on its topic, keyed by its key, and decodes to itself. */
class EventsOverKafkaTest {

    @Test
    void everyEventRoundTripsThroughTheBroker() throws Exception {
        TestStack.kafkaAdmin().close();
        var sent = new ArrayList<Envelope<?>>();
        var where = new ArrayList<RecordMetadata>();
        try (var producer = new KafkaProducer<String, byte[]>(TestStack.producerProperties())) {
            for (EventPayload payload : Samples.all()) {
                var envelope = Envelope.of(payload);
                sent.add(envelope);
                where.add(producer.send(new ProducerRecord<>(envelope.topic().topicName(), envelope.key(), EventCodec.encode(envelope)))
                        .get(30, TimeUnit.SECONDS));
            }
        }
        try (var consumer = new KafkaConsumer<String, byte[]>(TestStack.consumerProperties())) {
            for (int i = 0; i < sent.size(); i++) {
                var envelope = sent.get(i);
                var tp = new TopicPartition(where.get(i).topic(), where.get(i).partition());
                consumer.assign(List.of(tp));
                consumer.seek(tp, where.get(i).offset());
                ConsumerRecord<String, byte[]> record = poll(consumer);
                assertEquals(envelope.key(), record.key());
                var decoded = EventCodec.decode(envelope.topic(), record.value());
                assertEquals(envelope, assertInstanceOf(EventCodec.Decoded.Ok.class, decoded, decoded::toString).envelope());
            }
        }
        // Same groupId, same partition: another member of the group lands beside the first.
        var first = (RolloutCompleted) Samples.all().get(3);
        var r = first.ref();
        var siblingRef = new RolloutRef(r.taskId(), r.taskVersion(), r.contentHash(), r.groupId(), UUID.randomUUID(), 6, 1, r.groupSize(),
                r.policyVersion(), r.mode(), r.evalRunId(), r.sampling());
        var sibling = new RolloutCompleted(siblingRef,
                "runner-b", Termination.MAX_STEPS, null, "", first.trajectory(), first.stats());
        try (var producer = new KafkaProducer<String, byte[]>(TestStack.producerProperties())) {
            var envelope = Envelope.of(sibling);
            var meta = producer.send(new ProducerRecord<>(envelope.topic().topicName(), envelope.key(), EventCodec.encode(envelope)))
                    .get(30, TimeUnit.SECONDS);
            assertEquals(where.get(3).partition(), meta.partition());
        }
        System.out.printf("[events] %d events round-tripped through Kafka at %s%n", sent.size(), TestStack.kafkaBootstrap());
    }

    private static ConsumerRecord<String, byte[]> poll(KafkaConsumer<String, byte[]> consumer) {
        var got = new ArrayList<ConsumerRecord<String, byte[]>>();
        Waits.until("a record", Duration.ofSeconds(30), () -> {
            consumer.poll(Duration.ofMillis(500)).forEach(got::add);
            return !got.isEmpty();
        });
        return got.getFirst();
    }
}
