package ai.openalice.rl.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The real infrastructure of this test run, started by {@code dev/stack} (one broker and one
 * database shared by every module). Settings come from system properties set by the build
 * ({@code alice.kafka.bootstrap}, {@code alice.db.jdbc-url}, {@code alice.db.user},
 * {@code alice.db.password}). When something is not reachable, the error says how to start it:
 * tests never silently skip.
 */
public final class TestStack {
    private static final String HOW_TO_START = "start the stack with: dev/stack start (or run the tests with dev/test)";

    private TestStack() {}

    public static String kafkaBootstrap() {
        return System.getProperty("alice.kafka.bootstrap", "127.0.0.1:9092");
    }

    public static String jdbcUrl() {
        return System.getProperty("alice.db.jdbc-url", "jdbc:postgresql://127.0.0.1:5432/alice_rl_test");
    }

    /** The S3-protocol server of the run (S3Proxy, started by {@code dev/stack start}). */
    public static String s3Endpoint() {
        return System.getProperty("alice.s3.endpoint", "http://127.0.0.1:9000");
    }

    public static String s3AccessKey() {
        return System.getProperty("alice.s3.access-key", "alice-rl");
    }

    public static String s3SecretKey() {
        return System.getProperty("alice.s3.secret-key", "alice-rl-secret");
    }

    public static String dbUser() {
        return System.getProperty("alice.db.user", "alice");
    }

    public static String dbPassword() {
        return System.getProperty("alice.db.password", "alice");
    }

    /** A connection to the test database as the project's role. */
    public static Connection openDatabase() {
        try {
            return DriverManager.getConnection(jdbcUrl(), dbUser(), dbPassword());
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL not reachable at " + jdbcUrl() + " as " + dbUser() + " (" + e.getMessage()
                    + "); " + HOW_TO_START, e);
        }
    }

    /** An admin client on the test broker, after checking that the broker answers. */
    public static Admin kafkaAdmin() {
        Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafkaBootstrap(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000));
        try {
            admin.describeCluster().clusterId().get(15, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            admin.close(Duration.ZERO);
            throw new IllegalStateException("interrupted while reaching Kafka", e);
        } catch (ExecutionException | TimeoutException e) {
            admin.close(Duration.ZERO);
            throw new IllegalStateException("Kafka not reachable at " + kafkaBootstrap() + " (" + e + "); " + HOW_TO_START, e);
        }
        return admin;
    }

    /**
     * The partitions of {@code topic} once it exists (a topic is created by its first record),
     * waiting up to {@code wait}; a timeout naming the topic when it never appears.
     */
    public static List<TopicPartition> awaitPartitions(Consumer<?, ?> consumer, String topic, Duration wait) {
        Waits.until("topic " + topic + " to appear", wait, () -> consumer.listTopics().containsKey(topic));
        return consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
    }

    /** Producer settings for byte-array values and string keys, acks=all, idempotent. */
    public static Properties producerProperties() {
        var p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafkaBootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        return p;
    }

    /** Consumer settings for byte-array values and string keys, no group (use assign + seek). */
    public static Properties consumerProperties() {
        var p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafkaBootstrap());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return p;
    }
}
