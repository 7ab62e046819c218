package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.AliceRl;
import ai.openalice.rl.cli.KafkaClientConfig;
import ai.openalice.rl.cli.train.Supervisor;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.testkit.TestStack;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Kafka with SCRAM over TLS and ACLs, on a real broker of the test's own (dev/stack with a SASL_SSL
 * listener whose certificate a CA the test made with keytool signed, SCRAM-SHA-512 users and the
 * StandardAuthorizer): {@code alice-rl submit} with the CA's truststore and the right credentials
 * publishes, with a wrong password is refused, with a truststore of another CA is refused before any
 * credential is sent; a publisher's ACLs let it write tasks.submitted and tasks.rejected and nothing
 * else; the packaged task-dispatcher, given its credentials and the truststore in its environment —
 * the variables the chart sets (as {@code alice-rl train --kafka-config FILE} passes them, and as a
 * Secret would) — takes the task in within the ACLs of {@link #dispatcherAcls}, and its log never
 * holds the password.
 */
class KafkaSaslIT {
    static final Path ROOT = Path.of(System.getProperty("alice.services")).getParent();
    static final String PUBLISHER_PASSWORD = "pub-" + UUID.randomUUID();
    static final String DISPATCHER_PASSWORD = "disp-" + UUID.randomUUID();
    static final String SUFFIX = ".sasl" + UUID.randomUUID().toString().substring(0, 8);
    static PrivateBroker broker;
    static TestCertificates tls;
    static int plainPort;
    static int saslPort;

    @BeforeAll
    static void startBroker() throws Exception {
        tls = new TestCertificates(Path.of("target", "tls" + SUFFIX).toAbsolutePath());
        broker = new PrivateBroker("publisher:" + PUBLISHER_PASSWORD + " task-dispatcher:" + DISPATCHER_PASSWORD, tls);
        broker.startWhileStarting(); // a second kafka-start while the first is under way waits for it (dev/stack)
        plainPort = broker.port;
        saslPort = broker.saslPort;
        try (var admin = Admin.create(Map.of("bootstrap.servers", "127.0.0.1:" + plainPort))) { // PLAINTEXT: the test's super user
            var topics = new ArrayList<NewTopic>();
            for (Topic t : Topic.values()) {
                topics.add(new NewTopic(t.topicName() + SUFFIX, Optional.of(1), Optional.empty())
                        .configs(t.compacted() ? Map.of("cleanup.policy", "compact") : Map.of()));
                topics.add(new NewTopic(t.topicName() + ".dlq" + SUFFIX, Optional.of(1), Optional.empty()));
            }
            admin.createTopics(topics).all().get(30, TimeUnit.SECONDS);
            var acls = new ArrayList<AclBinding>();
            acls.add(topicAcl("publisher", Topic.TASKS_SUBMITTED.topicName() + SUFFIX, AclOperation.WRITE));
            acls.add(topicAcl("publisher", Topic.TASKS_REJECTED.topicName() + SUFFIX, AclOperation.WRITE));
            acls.addAll(dispatcherAcls());
            admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stopBroker() throws Exception {
        broker.close();
    }

    /**
     * What the task-dispatcher may do, as docs/security.md lists it: read what it consumes (and its
     * consumer groups), write what it produces and the dead-letter topics of what it consumes,
     * describe the configuration of tasks.accepted (it checks its compaction).
     */
    static List<AclBinding> dispatcherAcls() {
        var acls = new ArrayList<AclBinding>();
        for (Topic t : List.of(Topic.TASKS_SUBMITTED, Topic.ROLLOUTS_COMPLETED, Topic.VERIFICATIONS_COMPLETED, Topic.REWARDS_SCORED,
                Topic.CHECKPOINTS_PUBLISHED)) {
            acls.add(topicAcl("task-dispatcher", t.topicName() + SUFFIX, AclOperation.READ));
            acls.add(topicAcl("task-dispatcher", t.topicName() + ".dlq" + SUFFIX, AclOperation.WRITE));
        }
        for (Topic t : List.of(Topic.ROLLOUTS_REQUESTED, Topic.TASKS_REJECTED, Topic.TASKS_ACCEPTED)) {
            acls.add(topicAcl("task-dispatcher", t.topicName() + SUFFIX, AclOperation.WRITE));
        }
        acls.add(topicAcl("task-dispatcher", Topic.TASKS_ACCEPTED.topicName() + SUFFIX, AclOperation.DESCRIBE_CONFIGS));
        acls.add(new AclBinding(new ResourcePattern(ResourceType.GROUP, "task-dispatcher", PatternType.PREFIXED),
                new AccessControlEntry("User:task-dispatcher", "*", AclOperation.READ, AclPermissionType.ALLOW)));
        return acls;
    }

    static AclBinding topicAcl(String user, String topic, AclOperation op) {
        return new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW));
    }

    static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\"" + password + "\";";
    }

    static Path clientConfig(String user, String password) throws Exception {
        return clientConfig(user, password, tls.truststore);
    }

    /** A client's settings as Kafka's tools take them; the truststore's keys are the three the chart sets (KAFKA_SSL_TRUSTSTORE_*). */
    static Path clientConfig(String user, String password, Path truststore) throws Exception {
        var file = Files.createTempFile(broker.dir, user, ".properties");
        Files.writeString(file, "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=" + jaas(user, password) + "\n"
                + "ssl.truststore.type=PKCS12\nssl.truststore.location=" + truststore + "\nssl.truststore.password=" + tls.password + "\n");
        return file;
    }

    record Run(int exit, String out, String err) {}

    static Run submit(Path tasks, Path config) {
        var out = new StringWriter();
        var err = new StringWriter();
        int exit = new picocli.CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute("submit",
                tasks.toString(), "--kafka", "127.0.0.1:" + saslPort, "--kafka-config", config.toString(), "--topic-suffix", SUFFIX,
                "--kafka-timeout", "PT15S");
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void aPublisherWithItsCredentialsAndAclsOnlyAndADispatcherOverScram() throws Exception {
        Path tasks = Files.createTempFile(broker.dir, "tasks", ".jsonl");
        String id = "sasl-" + UUID.randomUUID().toString().substring(0, 8);
        var task = EventCodec.mapper().readTree(Files.readAllLines(ROOT.resolve("examples/tasks/calc.jsonl")).getFirst());
        ((ObjectNode) task).put("instance_id", id);
        ((ObjectNode) task.get("workspace")).put("path", ROOT.resolve("examples/tasks/calc-repo").toString());
        Files.writeString(tasks, task + "\n");

        var wrong = submit(tasks, clientConfig("publisher", "not-the-password"));
        assertEquals(3, wrong.exit(), wrong.out() + wrong.err());
        assertTrue(wrong.err().contains("Authentication failed"), wrong.err());
        var untrusted = submit(tasks, clientConfig("publisher", PUBLISHER_PASSWORD, tls.untrusted()));
        assertEquals(3, untrusted.exit(), untrusted.out() + untrusted.err());
        assertTrue(untrusted.err().contains("SSL handshake failed"), "a broker whose certificate no trusted CA signed: " + untrusted.err());
        String chart = Files.readString(ROOT.resolve("helm/alice-rl/templates/deployments.yaml"));
        for (String key : KafkaClientConfig.environment(KafkaClientConfig.load(clientConfig("task-dispatcher", DISPATCHER_PASSWORD))).keySet()) {
            assertTrue(chart.contains("- name: " + key), "the chart sets " + key + " as this test's dispatcher gets it");
        }

        try (var producer = new KafkaProducer<>(producerProperties("publisher", PUBLISHER_PASSWORD), new StringSerializer(), new StringSerializer())) {
            var refused = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>(Topic.ROLLOUTS_REQUESTED.topicName() + SUFFIX, "k", "{}")).get(30, TimeUnit.SECONDS));
            assertInstanceOf(TopicAuthorizationException.class, refused.getCause(), "a publisher may not request rollouts");
        }

        var supervisorState = broker.dir.resolve("state-" + SUFFIX);
        try (var s = new Supervisor(ROOT, supervisorState.resolve("logs"), List.of("-Dalice.topic-suffix=" + SUFFIX,
                "-Dkafka.bootstrap.servers=127.0.0.1:" + saslPort, "-Dquarkus.datasource.jdbc.url=" + TestStack.jdbcUrl(),
                "-Dquarkus.datasource.reactive.url=" + System.getProperty("alice.db.reactive-url"), "-Dquarkus.datasource.username=" + TestStack.dbUser(),
                "-Dquarkus.datasource.password=" + TestStack.dbPassword()),
                // as alice-rl train --kafka-config FILE passes them: the file's settings in every service's environment
                KafkaClientConfig.environment(KafkaClientConfig.load(clientConfig("task-dispatcher", DISPATCHER_PASSWORD))))) {
            s.start("task-dispatcher", List.of("-Ddispatcher.train=false"));
            s.awaitReady(Duration.ofMinutes(3));
            var right = submit(tasks, clientConfig("publisher", PUBLISHER_PASSWORD));
            assertEquals(0, right.exit(), right.out() + right.err());
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            String stored = null;
            while (stored == null && System.nanoTime() < deadline) {
                try {
                    stored = s.get("task-dispatcher", "/tasks/" + id);
                } catch (IllegalStateException notYet) {
                    Thread.sleep(500);
                }
            }
            assertTrue(stored != null && stored.contains("\"taskId\":\"" + id + "\""), "the dispatcher took the task in over SCRAM: " + stored);
            assertTrue(announced(Topic.TASKS_ACCEPTED.topicName() + SUFFIX, id), "the dispatcher wrote tasks.accepted within its ACLs");
        }
        String log = Files.readString(supervisorState.resolve("logs/task-dispatcher.log"));
        assertFalse(log.contains(DISPATCHER_PASSWORD), "the dispatcher's log holds its Kafka password");
    }

    /** Whether a record on {@code topic} (read as the PLAINTEXT super user) mentions {@code id}, within a minute. */
    static boolean announced(String topic, String id) {
        try (var c = new KafkaConsumer<String, String>(Map.of("bootstrap.servers", "127.0.0.1:" + plainPort), new StringDeserializer(),
                new StringDeserializer())) {
            var partition = new TopicPartition(topic, 0);
            c.assign(List.of(partition));
            c.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (System.nanoTime() < deadline) {
                for (var r : c.poll(Duration.ofMillis(500))) {
                    if (r.value() != null && r.value().contains(id)) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    static Properties producerProperties(String user, String password) {
        var p = new Properties();
        p.put("bootstrap.servers", "127.0.0.1:" + saslPort);
        p.put("security.protocol", "SASL_SSL");
        p.put("sasl.mechanism", "SCRAM-SHA-512");
        p.put("sasl.jaas.config", jaas(user, password));
        p.put("ssl.truststore.type", "PKCS12");
        p.put("ssl.truststore.location", tls.truststore.toString());
        p.put("ssl.truststore.password", tls.password);
        p.put("max.block.ms", "30000");
        return p;
    }
}
