package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.train.Supervisor;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.TaskSubmitted;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.testkit.TestStack;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The database goes away under a running service and comes back (a relay in front of the machine's
 * PostgreSQL is cut, then opened again on the same port): meanwhile the packaged task-dispatcher
 * answers POST /tasks with 503 and Retry-After, and the tasks published on Kafka are not skipped —
 * once the database is back, every one of them is stored, and REST takes tasks again, all by itself.
 */
class PostgresOutageIT {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    final String suffix = ".pgout" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void aDatabaseOutageIs503AndLosesNoEvent() throws Exception {
        var real = URI.create(TestStack.jdbcUrl().substring("jdbc:".length()));
        try (var proxy = new TcpProxy(PrivateBroker.freePort(), real.getHost(), real.getPort())) {
            proxy.open();
            String url = "postgresql://127.0.0.1:" + proxy.port() + real.getPath();
            var state = Path.of("target", "pg-outage" + suffix).toAbsolutePath();
            try (var s = new Supervisor(PrivateBroker.ROOT, state.resolve("logs"), List.of("-Dalice.topic-suffix=" + suffix,
                    "-Dkafka.bootstrap.servers=" + TestStack.kafkaBootstrap(), "-Dquarkus.datasource.jdbc.url=jdbc:" + url,
                    "-Dquarkus.datasource.reactive.url=" + url, "-Dquarkus.datasource.username=" + TestStack.dbUser(),
                    "-Dquarkus.datasource.password=" + TestStack.dbPassword()))) {
                s.start("task-dispatcher", List.of("-Ddispatcher.train=false"));
                s.awaitReady(Duration.ofMinutes(3));
                assertEquals(200, post(s, id()).statusCode());

                proxy.cut();
                var refused = post(s, id());
                assertEquals(503, refused.statusCode(), refused.body());
                assertTrue(refused.headers().firstValue("Retry-After").isPresent(), "a 503 says when to come back");
                var published = List.of(id(), id(), id());
                publish(published);
                Thread.sleep(5000); // the consumer meets the outage with these records in hand

                proxy.open();
                for (String id : published) {
                    assertEquals(200, awaitStored(s, id, Duration.ofMinutes(3)), id + " published during the outage was stored once it ended");
                }
                assertEquals(200, post(s, id()).statusCode(), "REST takes tasks again");
            }
        }
    }

    /**
     * The services started while the database cannot be reached (the relay not yet open) wait for it
     * rather than exit: the packaged trainer and task-dispatcher, started with the relay closed for a
     * minute, each start once — no restart — when it opens, and the trainer begins its run.
     */
    @Test
    void servicesStartedWhileTheDatabaseIsAwayWaitForIt() throws Exception {
        var real = URI.create(TestStack.jdbcUrl().substring("jdbc:".length()));
        try (var proxy = new TcpProxy(PrivateBroker.freePort(), real.getHost(), real.getPort());
                var opener = Executors.newSingleThreadScheduledExecutor()) {
            String url = "postgresql://127.0.0.1:" + proxy.port() + real.getPath();
            var state = Path.of("target", "pg-start" + suffix).toAbsolutePath();
            try (var s = new Supervisor(PrivateBroker.ROOT, state.resolve("logs"), List.of("-Dalice.topic-suffix=" + suffix,
                    "-Dkafka.bootstrap.servers=" + TestStack.kafkaBootstrap(), "-Dquarkus.datasource.jdbc.url=jdbc:" + url,
                    "-Dquarkus.datasource.reactive.url=" + url, "-Dquarkus.datasource.username=" + TestStack.dbUser(),
                    "-Dquarkus.datasource.password=" + TestStack.dbPassword()))) {
                s.start("task-dispatcher", List.of("-Ddispatcher.train=false"));
                s.start("trainer", List.of("-Dtrainer.artifact-dir=" + state.resolve("checkpoints")));
                var opened = opener.schedule(() -> {
                    proxy.open();
                    return null;
                }, 60, TimeUnit.SECONDS);
                s.awaitReady(Duration.ofMinutes(5));
                opened.get();
                // the database is shared with the other ITs: the run it begins may be one they left (v0 or later)
                var status = EventCodec.mapper().readTree(s.get("trainer", "/status"));
                assertTrue(status.path("policyVersion").isInt() && status.path("checkpointStep").isInt() && !status.has("countsUnavailable"),
                        "the trainer began its run, its state read from the database: " + status);
            }
            for (String service : List.of("trainer", "task-dispatcher")) {
                String log = Files.readString(state.resolve("logs/" + service + ".log"));
                assertTrue(log.contains("Connection error") && log.contains("Retrying in"), service + " said it waits for the database: " + log);
                assertEquals(1, log.split("Installed features", -1).length - 1, service + " started once, not again: " + log);
            }
        }
    }

    private String id() {
        return "pgout-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static ObjectNode task(String id) throws Exception {
        var t = (ObjectNode) EventCodec.mapper().readTree(Files.readAllLines(PrivateBroker.ROOT.resolve("examples/tasks/calc.jsonl")).getFirst());
        t.put("instance_id", id);
        ((ObjectNode) t.get("workspace")).put("path", PrivateBroker.ROOT.resolve("examples/tasks/calc-repo").toString());
        return t;
    }

    private static HttpResponse<String> post(Supervisor s, String id) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(s.uri("task-dispatcher", "/tasks")).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + s.auth().operatorToken()).POST(HttpRequest.BodyPublishers.ofString(task(id).toString())).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private void publish(List<String> ids) throws Exception {
        try (var p = new KafkaProducer<String, byte[]>(TestStack.producerProperties())) {
            for (String id : ids) {
                var env = Envelope.of(new TaskSubmitted("pg-outage", task(id), false, null));
                p.send(new ProducerRecord<>(Topic.TASKS_SUBMITTED.topicName() + suffix, env.key(), EventCodec.encode(env))).get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static int awaitStored(Supervisor s, String id, Duration wait) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        int status = -1;
        while (System.nanoTime() < deadline) {
            status = HTTP.send(HttpRequest.newBuilder(s.uri("task-dispatcher", "/tasks/" + id)).header("Authorization", "Bearer " + s.auth().operatorToken())
                    .build(), HttpResponse.BodyHandlers.ofString()).statusCode();
            if (status == 200) {
                return status;
            }
            Thread.sleep(1000);
        }
        return status;
    }
}
