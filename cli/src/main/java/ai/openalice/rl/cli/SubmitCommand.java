package ai.openalice.rl.cli;

import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.EventPayload;
import ai.openalice.rl.events.TaskRejected;
import ai.openalice.rl.events.TaskSubmitted;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.task.FieldError;
import ai.openalice.rl.events.task.TaskReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code alice-rl submit FILE.jsonl}: validates every line here, publishes the valid tasks to
 * {@code tasks.submitted} and the invalid ones to {@code tasks.rejected} (with the line and every
 * reason), prints the counts. The dispatcher still checks versions: a changed task under a known
 * id without {@code --new-version} is rejected there, on {@code tasks.rejected}.
 */
@Command(name = "submit", mixinStandardHelpOptions = true,
        description = "Publish tasks to Kafka (tasks.submitted). Exit 0 when every line was accepted, 1 when any was rejected,"
                + " 2 when the file cannot be read, 3 when Kafka cannot be reached.")
final class SubmitCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "A JSONL task file.")
    Path file;

    @Option(names = "--kafka", paramLabel = "HOST:PORT", defaultValue = "${env:ALICE_KAFKA_BOOTSTRAP:-127.0.0.1:9092}",
            description = "Kafka bootstrap servers (default: $ALICE_KAFKA_BOOTSTRAP or 127.0.0.1:9092).")
    String kafka;

    @Option(names = "--kafka-config", paramLabel = "FILE", defaultValue = "${env:ALICE_KAFKA_CONFIG}",
            description = "Kafka client settings as Java properties, as Kafka's own tools take them: security.protocol, sasl.mechanism,"
                    + " sasl.jaas.config, ssl.truststore.location... (default: $ALICE_KAFKA_CONFIG).")
    Path kafkaConfig;

    @Option(names = "--source", paramLabel = "NAME", description = "The publisher's name, for fair share (default: file:<name>).")
    String source;

    @Option(names = "--priority", paramLabel = "N", description = "Weight of these tasks within their source (>= 1).")
    Integer priority;

    @Option(names = "--new-version", description = "Changed tasks under known ids become new versions instead of conflicts.")
    boolean newVersion;

    @Option(names = "--kafka-timeout", defaultValue = "PT30S", paramLabel = "DURATION",
            description = "How long to wait for the broker before giving up (ISO-8601, default PT30S).")
    Duration kafkaTimeout;

    @Option(names = "--topic-suffix", paramLabel = "SUFFIX", defaultValue = "", hidden = true, description = "Appended to topic names (tests).")
    String suffix;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (priority != null && priority < 1) {
            err.println("--priority must be at least 1, got " + priority);
            return 2;
        }
        List<TaskReader.Line> lines;
        try {
            lines = TaskReader.read(file);
        } catch (UncheckedIOException e) {
            err.println(e.getMessage());
            return 2;
        }
        String from = source != null ? source : "file:" + file.getFileName();
        Properties props;
        try {
            props = KafkaClientConfig.load(kafkaConfig);
        } catch (IllegalArgumentException e) {
            err.println(e.getMessage());
            return 2;
        }
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        int timeoutMs = (int) Math.max(1000, kafkaTimeout.toMillis());
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMs);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs / 2);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeoutMs);
        int accepted = 0;
        int rejected = 0;
        try (var producer = new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
            var sent = new ArrayList<Future<RecordMetadata>>();
            for (TaskReader.Line line : lines) {
                switch (line) {
                    case TaskReader.Line.Valid v -> {
                        sent.add(send(producer, Topic.TASKS_SUBMITTED, new TaskSubmitted(from, TaskFiles.portable(v.task()), newVersion, priority)));
                        accepted++;
                    }
                    case TaskReader.Line.Invalid inv -> {
                        for (FieldError e : inv.errors()) {
                            out.printf("%s:%d: %s%n", file, inv.number(), e);
                        }
                        sent.add(send(producer, Topic.TASKS_REJECTED, new TaskRejected(from, inv.taskId(), inv.errors(), inv.text(),
                                TaskRejected.Origin.file(inv.number()))));
                        rejected++;
                    }
                }
            }
            for (var f : sent) {
                f.get(timeoutMs + 15_000L, TimeUnit.MILLISECONDS);
            }
        } catch (Exception e) {
            err.printf("cannot publish to Kafka at %s: %s%n", kafka, e.getCause() != null ? e.getCause().getMessage() : e.getMessage());
            return 3;
        }
        out.printf("%d accepted, %d rejected (published to %s at %s)%n", accepted, rejected, Topic.TASKS_SUBMITTED.topicName() + suffix, kafka);
        out.flush();
        return rejected == 0 ? 0 : 1;
    }

    private Future<RecordMetadata> send(KafkaProducer<String, byte[]> producer, Topic topic, EventPayload payload) {
        var env = Envelope.of(payload);
        return producer.send(new ProducerRecord<>(topic.topicName() + suffix, env.key(), EventCodec.encode(env)));
    }
}
