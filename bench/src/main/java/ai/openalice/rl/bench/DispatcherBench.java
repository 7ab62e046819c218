package ai.openalice.rl.bench;

import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.TaskSubmitted;
import ai.openalice.rl.events.Topic;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The dispatcher as deployed (the packaged service, a separate process, the real broker and
 * database): sustained intake (tasks/s from publishing on tasks.submitted to stored in
 * PostgreSQL) and scheduling (rollouts requested/s: the group rows and their outbox events
 * written and relayed to Kafka). Baseline, same run: the broker's own producer rate for the same
 * records (what kafka-producer-perf-test measures: acks=all, one producer).
 *
 * <pre>java -jar bench/target/benchmarks.jar dispatcher [tasks] [jdbc-url]</pre>
 */
final class DispatcherBench {
    private DispatcherBench() {}

    static void run(String[] args) throws Exception {
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        String jdbc = args.length > 2 ? args[2] : "jdbc:postgresql://127.0.0.1:5432/alice_rl_test";
        String bootstrap = System.getenv().getOrDefault("ALICE_KAFKA_BOOTSTRAP", "127.0.0.1:9092");
        Path app = Path.of("services/task-dispatcher/target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(app)) {
            throw new IllegalStateException(app + " is missing: ./mvnw -q -B -DskipTests -pl services/task-dispatcher -am package");
        }
        var template = (ObjectNode) EventCodec.mapper().readTree(Files.readAllLines(Path.of("examples/tasks/calc.jsonl")).getFirst());
        ((ObjectNode) template.get("workspace")).put("path", Path.of("examples/tasks/calc-repo").toAbsolutePath().toString());
        String suffix = ".bench" + UUID.randomUUID().toString().substring(0, 8);
        var records = new ArrayList<ProducerRecord<String, byte[]>>();
        for (int i = 0; i < n; i++) {
            var t = template.deepCopy().put("instance_id", "bench-" + i);
            var env = Envelope.of(new TaskSubmitted("bench", t, false, null));
            records.add(new ProducerRecord<>(Topic.TASKS_SUBMITTED.topicName() + suffix, env.key(), EventCodec.encode(env)));
        }
        System.out.printf("dispatcher: %,d tasks of %,d bytes each%n", n, records.getFirst().value().length);

        // baseline: the broker's producer rate for the same records, to a topic nobody reads
        double producerRate = produce(bootstrap, records.stream().map(r -> new ProducerRecord<>(r.topic() + ".baseline", r.key(), r.value())).toList());

        try (Connection db = DriverManager.getConnection(jdbc, "alice", "alice")) {
            db.createStatement().execute("DROP SCHEMA IF EXISTS dispatcher CASCADE");
            Process p = start(app, bootstrap, jdbc, suffix, false, "intake");
            try {
                waitFor(db, "SELECT count(*) FROM dispatcher.scheduler", 1, 120_000);
                long t0 = System.nanoTime();
                produce(bootstrap, records);
                waitFor(db, "SELECT count(*) FROM dispatcher.tasks", n, 600_000);
                double intake = n / ((System.nanoTime() - t0) / 1e9);
                System.out.printf("  baseline: producer (acks=all)      : %,10.0f records/s%n", producerRate);
                System.out.printf("  intake: Kafka → validated → stored : %,10.0f tasks/s   (%.3f of the producer rate)%n", intake, intake / producerRate);
            } finally {
                p.destroy();
                p.waitFor();
            }
            Process s = start(app, bootstrap, jdbc, suffix, true, "schedule");
            try {
                long t0 = System.nanoTime();
                long target = Math.min(20_000, 8L * n);
                waitFor(db, "SELECT count(*) FROM dispatcher.outbox WHERE topic = 'rollouts.requested' AND sent_at IS NOT NULL", target, 600_000);
                double rate = target / ((System.nanoTime() - t0) / 1e9);
                System.out.printf("  scheduling: rollouts requested     : %,10.0f rollouts/s (%.3f of the producer rate; groups of 8, relayed to Kafka)%n",
                        rate, rate / producerRate);
            } finally {
                s.destroy();
                s.waitFor();
            }
        }
    }

    private static double produce(String bootstrap, List<ProducerRecord<String, byte[]>> records) throws Exception {
        var props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        long t0 = System.nanoTime();
        try (var producer = new KafkaProducer<>(props, new StringSerializer(), new ByteArraySerializer())) {
            for (var r : records) {
                producer.send(r);
            }
            producer.flush();
        }
        return records.size() / ((System.nanoTime() - t0) / 1e9);
    }

    private static Process start(Path app, String bootstrap, String jdbc, String suffix, boolean train, String name) throws Exception {
        int http;
        try (var socket = new ServerSocket(0)) {
            http = socket.getLocalPort();
        }
        var cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Dquarkus.http.port=" + http,
                "-Dalice.topic-suffix=" + suffix, "-Ddispatcher.train=" + train, "-Ddispatcher.tick=100ms", "-Ddispatcher.max-in-flight=1000000",
                "-Dalice.auth.enabled=false", // Kafka only: no REST call is made
                "-Ddispatcher.pace.groups-per-version=0", // unpaced: no trainer publishes versions here
                "-Dkafka.bootstrap.servers=" + bootstrap, "-Dquarkus.datasource.jdbc.url=" + jdbc,
                "-Dquarkus.datasource.reactive.url=" + jdbc.substring("jdbc:".length()), "-Dquarkus.log.level=WARN", "-jar", app.toString());
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(new File("bench/target/dispatcher-" + name + ".log")).start();
    }

    private static void waitFor(Connection db, String sql, long atLeast, long timeoutMs) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline) {
            try (var rs = db.createStatement().executeQuery(sql)) {
                if (rs.next() && rs.getLong(1) >= atLeast) {
                    return;
                }
            } catch (SQLException schemaNotYetThere) {
                // Flyway has not run yet
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("timed out waiting for " + atLeast + " from: " + sql);
    }
}
