package ai.openalice.rl.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What must hold of a run after any fault, read from its databases and topics: every requested
 * rollout settled or within its deadline; no infrastructure failure trained on; no group member
 * trained twice (its attempts together); every trained sample's rollout known to the dispatcher;
 * no checkpoint version announced twice with different contents. Each check gives the number of
 * violations (0 is a pass) and a few examples.
 */
final class LoopAudit {
    record Check(String name, long violations, List<String> examples) {}

    private final String jdbcUrl;
    private final String user;
    private final String password;

    LoopAudit(String jdbcUrl, String user, String password) {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
    }

    /** The audit of the run whose state folder is {@code state} (its database as {@code infra.json} names it). */
    static LoopAudit of(Path state) throws IOException {
        JsonNode c = new ObjectMapper().readTree(state.resolve("infra.json").toFile());
        return new LoopAudit(c.get("jdbcUrl").asText(), c.get("user").asText(), c.get("password").asText());
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    /** The newest checkpoint the trainer committed, or -1; null while the database cannot be reached. */
    Long latestVersion() {
        try (var c = connect(); var st = c.createStatement(); var rs = st.executeQuery("SELECT coalesce(max(policy_version), -1) FROM trainer.checkpoints")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            return null;
        }
    }

    /** The database's clock (the trainer stamps samples with it). */
    Timestamp now() throws SQLException {
        try (var c = connect(); var st = c.createStatement(); var rs = st.executeQuery("SELECT now()")) {
            rs.next();
            return rs.getTimestamp(1);
        }
    }

    /** Whether the trainer has trained on a sample it received after {@code at}; false while the database is away. */
    boolean trainedSince(Timestamp at) {
        try (var c = connect(); var st = c.prepareStatement("SELECT 1 FROM trainer.samples WHERE step IS NOT NULL AND received_at > ? LIMIT 1")) {
            st.setTimestamp(1, at);
            try (var rs = st.executeQuery()) {
                return rs.next();
            }
        } catch (SQLException e) {
            return false;
        }
    }

    List<Check> database() throws SQLException {
        var out = new ArrayList<Check>();
        try (var c = connect()) {
            out.add(check(c, "every requested rollout settled or within its deadline",
                    "SELECT rollout_id || ' ' || state || ' since ' || updated_at FROM dispatcher.rollouts"
                            + " WHERE state IN ('requested', 'completed', 'verified') AND deadline < now()"));
            out.add(check(c, "no infrastructure failure trained on",
                    "SELECT rollout_id || ' at step ' || step FROM trainer.samples WHERE infra AND step IS NOT NULL"));
            out.add(check(c, "no group member trained twice (attempts together)",
                    "SELECT r.group_id || ' member ' || r.member_index || ': ' || count(*) || ' times' FROM trainer.samples s"
                            + " JOIN dispatcher.rollouts r ON r.rollout_id = s.rollout_id WHERE s.step IS NOT NULL"
                            + " GROUP BY r.group_id, r.member_index HAVING count(*) > 1"));
            out.add(check(c, "every trained sample's rollout exists in the dispatcher",
                    "SELECT s.rollout_id::text FROM trainer.samples s WHERE s.step IS NOT NULL"
                            + " AND NOT EXISTS (SELECT 1 FROM dispatcher.rollouts r WHERE r.rollout_id = s.rollout_id)"));
        }
        return out;
    }

    private static Check check(Connection c, String name, String violations) throws SQLException {
        var examples = new ArrayList<String>();
        long n = 0;
        try (var st = c.createStatement(); var rs = st.executeQuery(violations)) {
            while (rs.next()) {
                if (n++ < 5) {
                    examples.add(rs.getString(1));
                }
            }
        }
        return new Check(name, n, examples);
    }

    /** Rollouts that ended {@code failed} or {@code retried}, counted by reason (the first 120 characters). */
    Map<String, Long> endings(String state) throws SQLException {
        var out = new LinkedHashMap<String, Long>();
        try (var c = connect(); var st = c.prepareStatement("SELECT left(coalesce(reason, '(none)'), 120), count(*) FROM dispatcher.rollouts"
                + " WHERE state = ? GROUP BY 1 ORDER BY 2 DESC")) {
            st.setString(1, state);
            try (var rs = st.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        return out;
    }

    /**
     * checkpoints.published read from the start: a version announced twice with different contents
     * is a violation; the same event twice (the outbox relays at least once) is counted apart.
     */
    static Check checkpoints(String bootstrap, String topic, int[] sameEventTwice) {
        var props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        var mapper = new ObjectMapper();
        Map<Long, String> content = new HashMap<>();
        Map<String, Integer> events = new HashMap<>();
        var examples = new ArrayList<String>();
        long violations = 0;
        try (var consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            var partitions = consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p)) && System.nanoTime() < deadline) {
                for (var r : consumer.poll(Duration.ofSeconds(1))) {
                    JsonNode n = mapper.readTree(r.value());
                    long version = n.at("/payload/policyVersion").asLong();
                    String what = n.at("/payload/onnx").toString() + n.at("/payload/step").asText();
                    if (events.merge(n.path("eventId").asText(), 1, Integer::sum) > 1) {
                        sameEventTwice[0]++;
                        continue;
                    }
                    String before = content.putIfAbsent(version, what);
                    if (before != null && !before.equals(what) && violations++ < 5) {
                        examples.add("v" + version + ": " + before + " and " + what);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Check("no checkpoint version published twice (" + content.size() + " versions on " + topic + ")", violations, examples);
    }
}
