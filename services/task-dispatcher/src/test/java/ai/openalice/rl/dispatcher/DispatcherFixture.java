package ai.openalice.rl.dispatcher;

import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.EventPayload;
import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.servicekit.OutboxRelay;
import ai.openalice.rl.testkit.TestStack;
import ai.openalice.rl.testkit.Topics;
import ai.openalice.rl.testkit.Waits;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Tasks, events and waiting for the dispatcher tests. */
final class DispatcherFixture {
    static final Path TASKS = Path.of("..", "..", "examples", "tasks", "calc.jsonl").toAbsolutePath().normalize();
    static final HttpClient HTTP = HttpClient.newHttpClient();

    private DispatcherFixture() {}

    /** The first example task under another id (and optionally another split or statement). */
    static ObjectNode task(String id, String split, String statement) {
        try {
            var node = (ObjectNode) EventCodec.mapper().readTree(Files.readAllLines(TASKS).getFirst());
            node.put("instance_id", id).put("split", split);
            if (statement != null) {
                node.put("problem_statement", statement);
            }
            ((ObjectNode) node.get("workspace")).put("path", TASKS.getParent().resolve("calc-repo").toString());
            return node;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static void send(String topic, String key, byte[] value) throws Exception {
        try (var producer = new KafkaProducer<String, byte[]>(TestStack.producerProperties())) {
            producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
        }
    }

    /** Sends {@code p} as if the outbox of the service with schema {@code producer} had sent it. */
    static void sendAs(String producer, String topic, EventPayload p) throws Exception {
        var env = Envelope.of(p);
        var rec = new ProducerRecord<>(topic, env.key(), EventCodec.encode(env));
        rec.headers().add(OutboxRelay.PRODUCER_HEADER, producer.getBytes(StandardCharsets.UTF_8));
        try (var producerClient = new KafkaProducer<String, byte[]>(TestStack.producerProperties())) {
            producerClient.send(rec).get(30, TimeUnit.SECONDS);
        }
    }

    static void send(String topic, EventPayload p) throws Exception {
        var env = Envelope.of(p);
        send(topic, env.key(), EventCodec.encode(env));
    }

    static RolloutCompleted completed(String task, UUID group, UUID rollout, Termination end) {
        return new RolloutCompleted(ref(task, group, rollout), "runner-t", end,
                end == Termination.INFRA_ERROR ? new RolloutCompleted.Failure("sandbox", "pod evicted") : null, "",
                new TrajectoryRef.Inline(new Trajectory(List.of())), new RolloutCompleted.Stats(1, 1, 1, 1, 1, 1));
    }

    /** A header for a rollout of a group of two (the dispatcher reads the rollout id from it). */
    static RolloutRef ref(String task, UUID group, UUID rollout) {
        return new RolloutRef(task, 1, null, group, rollout, 0, 1, 2, 0, RolloutRef.Mode.TRAIN, null, new RolloutRef.Sampling(1.0, 1.0, 64, null));
    }

    static RewardScored reward(String task, UUID group, UUID rollout, int rExec, double sPrm) {
        return reward(task, group, rollout, rExec, sPrm, Termination.SUBMITTED);
    }

    static RewardScored reward(String task, UUID group, UUID rollout, int rExec, double sPrm, Termination end) {
        double r = rExec == 1 ? 0.8 + 0.2 * sPrm : 0.2 * sPrm;
        return new RewardScored(ref(task, group, rollout), false, null, null, end, rExec, sPrm, 0.8, r, 1, List.of(),
                new TrajectoryRef.Inline(new Trajectory(List.of())), null);
    }

    /** Every record on {@code topic} (from the beginning): at least {@code atLeast} within {@code wait}, then 1.5 s more for any that follow. */
    static List<ConsumerRecord<String, byte[]>> records(String topic, int atLeast, Duration wait) {
        return Topics.read(topic, atLeast, wait, Duration.ofMillis(1500), r -> true);
    }

    static void await(String what, BooleanSupplier condition) {
        Waits.until(what, Duration.ofSeconds(45), condition::getAsBoolean);
    }

    record Reply(int status, JsonNode body) {}

    static Reply http(URI uri, String method, String body) {
        try {
            var b = HttpRequest.newBuilder(uri).header("Content-Type", "application/json");
            b = body == null ? b.method(method, HttpRequest.BodyPublishers.noBody()) : b.method(method, HttpRequest.BodyPublishers.ofString(body));
            var r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            return new Reply(r.statusCode(), r.body().isEmpty() ? null : EventCodec.mapper().readTree(r.body()));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Empties the dispatcher's tables and puts the scheduler back at policy v0, round 0 (each test starts from nothing). */
    static void reset(Pool pool) {
        pool.query("""
                TRUNCATE dispatcher.rollouts, dispatcher.groups, dispatcher.evals, dispatcher.task_state, dispatcher.tasks, dispatcher.sources,
                         dispatcher.solve_history, dispatcher.staleness, dispatcher.cohort_state;
                UPDATE dispatcher.scheduler SET policy_version = 0, round = 0, trainer_terms = NULL, terms_version = NULL""").execute().await().atMost(Duration.ofSeconds(45));
    }

    static List<Row> rows(Pool pool, String sql, Object... args) {
        var out = new ArrayList<Row>();
        pool.preparedQuery(sql).execute(Tuple.from(args)).await().atMost(Duration.ofSeconds(45)).forEach(out::add);
        return out;
    }

    /** Scores every member of {@code group} on {@code topic}: member 0 with r_exec {@code first}, the others with 0; waits until it is finished. */
    static void scoreGroup(Pool pool, String topic, UUID group, int first) throws Exception {
        scoreGroup(pool, topic, group, first, Termination.SUBMITTED);
    }

    /** Member 0 gets r_exec {@code first} and ends with {@code firstEnd}; the others fail, submitted. */
    static void scoreGroup(Pool pool, String topic, UUID group, int first, Termination firstEnd) throws Exception {
        for (Row r : rows(pool, "SELECT rollout_id, member_index FROM dispatcher.rollouts WHERE group_id = $1", group)) {
            boolean lead = r.getInteger("member_index") == 0;
            send(topic, reward("t", group, r.getUUID("rollout_id"), lead ? first : 0, 0.5, lead ? firstEnd : Termination.SUBMITTED));
        }
        await("group " + group + " finished", () -> rows(pool, "SELECT state FROM dispatcher.groups WHERE group_id = $1", group).getFirst()
                .getString("state").equals("finished"));
    }

    /** The groups created at {@code version}, in scheduling order. */
    static List<UUID> groupsAt(Pool pool, long version) {
        return rows(pool, "SELECT group_id FROM dispatcher.groups WHERE policy_version = $1 ORDER BY round", version).stream().map(r -> r.getUUID(0))
                .toList();
    }
}
