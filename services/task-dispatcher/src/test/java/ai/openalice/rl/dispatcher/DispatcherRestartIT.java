package ai.openalice.rl.dispatcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.RolloutRequested;
import ai.openalice.rl.events.TaskSubmitted;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Waits;
import java.io.File;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The packaged dispatcher killed (SIGKILL) in the middle of a bulk intake, after it requested its
 * groups, and started again: every task published is stored, and no group is requested twice —
 * the restarted dispatcher sees the cap already used by the groups of the one it replaced.
 */
class DispatcherRestartIT {
    /** Published before the kill: enough for A's two groups. */
    static final int FIRST = 100;
    /** Published once A has requested its groups; A is killed as soon as it has stored the first of them. */
    static final int SECOND = 10_000;
    static final int TASKS = FIRST + SECOND;
    final String suffix = ".it" + UUID.randomUUID().toString().substring(0, 8);

    private Process dispatcher(String name) throws Exception {
        int http;
        try (var socket = new ServerSocket(0)) {
            http = socket.getLocalPort();
        }
        var cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.http.port=" + http, "-Dalice.topic-suffix=" + suffix, "-Ddispatcher.tick=200ms", "-Dalice.auth.enabled=false",
                "-Ddispatcher.group-size=2", "-Ddispatcher.max-in-flight=4", "-Ddispatcher.pace.groups-per-version=0",
                "-Dkafka.bootstrap.servers=" + TestStack.kafkaBootstrap(),
                "-Dquarkus.datasource.jdbc.url=" + TestStack.jdbcUrl(),
                "-Dquarkus.datasource.reactive.url=" + System.getProperty("alice.db.reactive-url"),
                "-Dquarkus.datasource.username=" + TestStack.dbUser(), "-Dquarkus.datasource.password=" + TestStack.dbPassword(),
                "-Dmp.messaging.incoming.tasks-submitted.max.poll.records=20",
                "-Dmp.messaging.incoming.tasks-submitted.session.timeout.ms=6000",
                "-Dmp.messaging.incoming.tasks-submitted.heartbeat.interval.ms=1000",
                "-jar", System.getProperty("dispatcher.app")));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(new File("target/" + name + ".log")).start();
    }

    private static long count(String sql) throws Exception {
        try (Connection c = TestStack.openDatabase(); var st = c.createStatement()) {
            try (var rs = st.executeQuery(sql)) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            return -1; // the schema is not there yet
        }
    }

    private static void awaitCount(String what, String sql, LongPredicate ok, Duration wait) throws Exception {
        awaitCount(what, sql, ok, wait, Duration.ofMillis(100));
    }

    private static void awaitCount(String what, String sql, LongPredicate ok, Duration wait, Duration every) throws Exception {
        long[] n = {-1};
        try {
            Waits.await(what, wait).pollInterval(every).until(() -> ok.test(n[0] = count(sql)));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(what + ": last count " + n[0], e);
        }
    }

    /** Publishes tasks bulk-{@code from} to bulk-{@code to - 1} and waits until the broker has them. */
    private void publish(KafkaProducer<String, byte[]> p, int from, int to) {
        for (int i = from; i < to; i++) {
            var env = Envelope.of(new TaskSubmitted("bulk", DispatcherFixture.task("bulk-" + i, "train", null), false, null));
            p.send(new ProducerRecord<>(Topic.TASKS_SUBMITTED.topicName() + suffix, env.key(), EventCodec.encode(env)));
        }
        p.flush();
    }

    @Test
    void aKilledDispatcherLosesNoTaskAndRequestsNoGroupTwice() throws Exception {
        try (Connection c = TestStack.openDatabase(); var st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS dispatcher CASCADE");
        }
        Process a = dispatcher("dispatcher-A");
        Process b = null;
        try {
            try (var p = new KafkaProducer<String, byte[]>(TestStack.producerProperties())) {
                publish(p, 0, FIRST);
                awaitCount("dispatcher A requested its two groups", "SELECT count(*) FROM dispatcher.outbox WHERE sent_at IS NOT NULL"
                        + " AND topic = 'rollouts.requested'", n -> n == 4, Duration.ofSeconds(120));
                awaitCount("dispatcher A stored the first tasks", "SELECT count(*) FROM dispatcher.tasks", n -> n == FIRST,
                        Duration.ofSeconds(60));
                // The kill must land inside the intake whatever the machine's speed (a fast machine once took in a
                // whole 3,000-task intake before its groups were requested): the second wave is published only
                // now, and A is killed the moment it has stored any of it — A takes 20 records a poll, so the
                // 10,000 cannot all be in by then.
                publish(p, FIRST, TASKS);
                awaitCount("dispatcher A took in part of the second wave", "SELECT count(*) FROM dispatcher.tasks", n -> n > FIRST,
                        Duration.ofSeconds(60), Duration.ofMillis(10));
            }
            a.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            long storedBeforeKill = count("SELECT count(*) FROM dispatcher.tasks");
            assertTrue(storedBeforeKill < TASKS, "the kill came after the whole intake (" + storedBeforeKill + "): nothing was tested");
            System.out.printf("[restart] killed dispatcher A with %d of %d tasks stored%n", storedBeforeKill, TASKS);

            b = dispatcher("dispatcher-B");
            awaitCount("every task stored after the restart (see target/dispatcher-B.log)", "SELECT count(*) FROM dispatcher.tasks",
                    n -> n == TASKS, Duration.ofSeconds(120));
            Thread.sleep(3000); // several scheduling passes of B
            assertEquals(2, count("SELECT count(*) FROM dispatcher.groups"), "B requested no group beyond A's two (the cap is full)");
            assertEquals(TASKS, count("SELECT count(DISTINCT task_id) FROM dispatcher.tasks WHERE version = 1"));

            Map<UUID, Set<UUID>> byGroup = new HashMap<>();
            var seen = new HashSet<UUID>();
            for (var rec : DispatcherFixture.records(Topic.ROLLOUTS_REQUESTED.topicName() + suffix, 4, Duration.ofSeconds(30))) {
                var r = ((EventCodec.Decoded.Ok<RolloutRequested>) EventCodec.<RolloutRequested>decode(Topic.ROLLOUTS_REQUESTED, rec.value()))
                        .envelope().payload();
                seen.add(r.rolloutId());
                byGroup.computeIfAbsent(r.groupId(), g -> new HashSet<>()).add(r.rolloutId());
            }
            assertEquals(2, byGroup.size(), "two groups on the topic: " + byGroup);
            assertTrue(byGroup.values().stream().allMatch(s -> s.size() == 2), "each with its two members: " + byGroup);
            assertEquals(4, seen.size());
            assertEquals(4, count("SELECT count(*) FROM dispatcher.rollouts WHERE state = 'requested'"));
        } finally {
            a.destroyForcibly();
            if (b != null) {
                b.destroy();
                b.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }
}
