package ai.openalice.rl.servicekit;

import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.EventPayload;
import ai.openalice.rl.events.Topic;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * How every service reads an event, with one policy for a record that cannot be read: it is
 * counted ({@code alice_events_malformed_total{topic}}), sent to {@code <topic>.dlq} (the deployment's
 * suffix after it) with the reason in the {@code dead-letter-reason} header, and skipped. Nothing is
 * dropped silently, and a failure to process a well-formed event stays the channel's own business
 * (its failure strategy: retried after a restart, or dead-lettered): a database outage never sends a
 * good event to the dead-letter topic. When the dead letter itself cannot be sent, the read fails and
 * the record is not acknowledged.
 */
@ApplicationScoped
public class Inbox {
    private static final Logger LOG = Logger.getLogger(Inbox.class);
    /** The header with why the record is there, as SmallRye's own dead-letter strategy names it. */
    public static final String REASON_HEADER = "dead-letter-reason";
    /** The header naming the topic the record was read from. */
    public static final String TOPIC_HEADER = "dead-letter-topic";
    /** The header naming the service that could not read it (several services read one topic). */
    public static final String CONSUMER_HEADER = "dead-letter-consumer";

    @Inject
    MeterRegistry metrics;

    @Inject
    KafkaClients kafka;

    /** Empty in a deployment (an empty value is no value to MicroProfile Config); tests isolate their topics with it. */
    @ConfigProperty(name = "alice.topic-suffix")
    Optional<String> topicSuffix;

    @ConfigProperty(name = "quarkus.application.name", defaultValue = "unknown")
    String service;

    private KafkaProducer<String, byte[]> producer;

    /** The event in {@code value}, read from {@code topic}; empty when it could not be read (it was dead-lettered). */
    public <P extends EventPayload> Optional<Envelope<P>> read(Topic topic, byte[] value) {
        return switch (EventCodec.<P>decode(topic, value)) {
            case EventCodec.Decoded.Ok<P> ok -> Optional.of(ok.envelope());
            case EventCodec.Decoded.Malformed<P> m -> {
                deadLetter(topic, value, m.reason());
                yield Optional.empty();
            }
        };
    }

    /** The name of {@code topic}'s dead-letter topic on this deployment. */
    public String deadLetterTopic(Topic topic) {
        return topic.topicName() + ".dlq" + topicSuffix.orElse("");
    }

    /** The name {@code topic} has on this deployment. */
    private String deployed(Topic topic) {
        return topic.topicName() + topicSuffix.orElse("");
    }

    private void deadLetter(Topic topic, byte[] value, String reason) {
        metrics.counter("alice_events_malformed_total", "topic", topic.topicName()).increment();
        String to = deadLetterTopic(topic);
        var record = new ProducerRecord<String, byte[]>(to, null, value == null ? new byte[0] : value);
        record.headers().add(REASON_HEADER, reason.getBytes(StandardCharsets.UTF_8));
        record.headers().add(TOPIC_HEADER, deployed(topic).getBytes(StandardCharsets.UTF_8));
        record.headers().add(CONSUMER_HEADER, service.getBytes(StandardCharsets.UTF_8));
        try {
            producer().send(record).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(topic.topicName() + ": cannot send an unreadable record to " + to + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while dead-lettering", e);
        }
        LOG.warnf("%s: a record that cannot be read went to %s: %s", topic.topicName(), to, reason);
    }

    private synchronized KafkaProducer<String, byte[]> producer() {
        if (producer == null) {
            var settings = new HashMap<>(kafka.connection());
            settings.put(ProducerConfig.ACKS_CONFIG, "all");
            settings.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
            producer = new KafkaProducer<>(settings, new StringSerializer(), new ByteArraySerializer());
        }
        return producer;
    }

    @PreDestroy
    synchronized void close() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
    }
}
