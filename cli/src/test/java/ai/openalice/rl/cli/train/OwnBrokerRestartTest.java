package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code alice-rl train}'s own Kafka broker, SIGKILLed, is brought back by the supervisor's watch
 * as a service would be — on the same port and data folder, counted among the restarts — and what
 * it held survives: the topic, its records, and a consumer group's committed offset (so every
 * service goes on where it was). The real broker, started by {@code dev/stack} as the run starts it.
 */
class OwnBrokerRestartTest {
    @TempDir
    Path state;

    @Test
    void aKilledBrokerIsStartedAgainWithItsTopicsAndOffsets() throws Exception {
        Path root = Path.of("").toAbsolutePath().getParent(); // the cli module's parent: the repository
        var out = new StringWriter();
        try (var infra = new Infra(root, state, new PrintWriter(out, true));
                var s = new Supervisor(root, state.resolve("logs"), List.of())) {
            infra.startKafka();
            s.watch("kafka", new Supervisor.Watched() {
                public boolean alive() {
                    return infra.kafkaAlive();
                }

                public void restart() throws Exception {
                    infra.restartKafka();
                }
            });
            assertEquals(List.of(), s.restartFailed(5, 3), "alive: nothing to do");
            try (var admin = Admin.create(Map.of("bootstrap.servers", infra.bootstrap))) {
                admin.createTopics(List.of(new NewTopic("before.kill", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            send(infra.bootstrap, "one");
            send(infra.bootstrap, "two");
            assertEquals(List.of("one"), consume(infra.bootstrap, 1), "the group reads one and commits");

            long pid = Long.parseLong(Files.readString(state.resolve("stack/kafka/kafka.pid")).strip());
            ProcessHandle.of(pid).orElseThrow().destroyForcibly();
            ProcessHandle.of(pid).ifPresent(p -> p.onExit().join());
            assertFalse(infra.kafkaAlive());

            assertEquals(List.of("kafka (it was not running; restart 1/5)"), s.restartFailed(5, 3));
            assertTrue(infra.kafkaAlive());
            assertEquals(Map.of("kafka", 1), s.restarts(), "counted among the restarts");
            assertEquals(List.of("two"), consume(infra.bootstrap, 1), "the topic, its records and the group's offset survived");
            assertTrue(out.toString().contains("127.0.0.1:" + infra.bootstrap.split(":")[1]), "the same port: " + out);
        }
    }

    private static void send(String bootstrap, String value) throws Exception {
        try (var p = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", bootstrap), new StringSerializer(), new StringSerializer())) {
            p.send(new ProducerRecord<>("before.kill", value)).get(30, TimeUnit.SECONDS);
        }
    }

    private static List<String> consume(String bootstrap, int n) {
        var props = new Properties();
        props.putAll(Map.of("bootstrap.servers", bootstrap, "group.id", "restart-test", "auto.offset.reset", "earliest", "enable.auto.commit",
                "false", "max.poll.records", Integer.toString(n)));
        try (var c = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            c.subscribe(List.of("before.kill"));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                var records = c.poll(Duration.ofSeconds(1));
                if (!records.isEmpty()) {
                    c.commitSync();
                    var values = new ArrayList<String>();
                    records.forEach(r -> values.add(r.value()));
                    return values;
                }
            }
            return List.of();
        }
    }
}
