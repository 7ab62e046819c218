package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.train.Supervisor;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.testkit.TestStack;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * The broker goes away under a running service and comes back: the packaged task-dispatcher keeps
 * taking tasks over REST while Kafka is down (its outbox holds the tasks.accepted events, counted
 * unsent in its database), stays live, and once the broker is back every event reaches the topic —
 * the three taken before the outage and the three during it, none lost.
 */
class BrokerOutageIT {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    final String suffix = ".outage" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void tasksTakenWhileTheBrokerIsDownAreAnnouncedWhenItReturns() throws Exception {
        try (var broker = new PrivateBroker(null)) {
            broker.start();
            var state = broker.dir.resolve("state");
            try (var s = new Supervisor(PrivateBroker.ROOT, state.resolve("logs"), List.of("-Dalice.topic-suffix=" + suffix,
                    "-Dkafka.bootstrap.servers=" + broker.bootstrap(), "-Dquarkus.datasource.jdbc.url=" + TestStack.jdbcUrl(),
                    "-Dquarkus.datasource.reactive.url=" + System.getProperty("alice.db.reactive-url"), "-Dquarkus.datasource.username=" + TestStack.dbUser(),
                    "-Dquarkus.datasource.password=" + TestStack.dbPassword()))) {
                s.start("task-dispatcher", List.of("-Ddispatcher.train=false"));
                s.awaitReady(Duration.ofMinutes(3));
                var before = List.of(id(), id(), id());
                submit(s, before);
                assertEquals(new TreeSet<>(before), announced(broker, before.size(), Duration.ofMinutes(1)));

                broker.stop();
                var during = List.of(id(), id(), id());
                submit(s, during); // REST intake needs the database, not the broker
                long unsent = unsentOutboxRows();
                assertTrue(unsent >= during.size(), "the outbox holds what it cannot send: " + unsent);
                var live = HTTP.send(HttpRequest.newBuilder(s.uri("task-dispatcher", "/q/health/live")).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, live.statusCode(), "alive while the broker is away: " + live.body());

                broker.start();
                var all = new TreeSet<>(before);
                all.addAll(during);
                assertEquals(all, announced(broker, all.size(), Duration.ofMinutes(3)), "every task announced, none lost");
            }
        }
    }

    private String id() {
        return "outage-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static void submit(Supervisor s, List<String> ids) throws Exception {
        var base = (ObjectNode) EventCodec.mapper().readTree(Files.readAllLines(PrivateBroker.ROOT.resolve("examples/tasks/calc.jsonl")).getFirst());
        var body = new StringBuilder();
        for (String id : ids) {
            var t = base.deepCopy();
            t.put("instance_id", id);
            ((ObjectNode) t.get("workspace")).put("path", PrivateBroker.ROOT.resolve("examples/tasks/calc-repo").toString());
            body.append(t).append('\n');
        }
        var reply = EventCodec.mapper().readTree(s.post("task-dispatcher", "/tasks", body.toString()));
        assertEquals(ids.size(), reply.get("accepted").asInt(), reply.toString());
    }

    private static long unsentOutboxRows() throws Exception {
        try (var c = TestStack.openDatabase(); var st = c.createStatement();
                var rs = st.executeQuery("SELECT count(*) FROM dispatcher.outbox WHERE sent_at IS NULL")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The task ids announced on tasks.accepted, once {@code count} of this test's are there or the wait is over. */
    private Set<String> announced(PrivateBroker broker, int count, Duration wait) {
        var ids = new TreeSet<String>();
        try (var c = new KafkaConsumer<String, String>(Map.of("bootstrap.servers", broker.bootstrap()), new StringDeserializer(),
                new StringDeserializer())) {
            String topic = Topic.TASKS_ACCEPTED.topicName() + suffix;
            long deadline = System.nanoTime() + wait.toNanos();
            List<TopicPartition> parts = List.of();
            while (parts.isEmpty() && System.nanoTime() < deadline) {
                parts = c.partitionsFor(topic, Duration.ofSeconds(10)).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            }
            c.assign(parts);
            c.seekToBeginning(parts);
            while (ids.size() < count && System.nanoTime() < deadline) {
                for (var r : c.poll(Duration.ofMillis(500))) {
                    ids.add(EventCodec.mapper().readTree(r.value()).at("/payload/taskId").asText());
                }
            }
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        ids.removeIf(i -> !i.startsWith("outage-"));
        return ids;
    }
}
