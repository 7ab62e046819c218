package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * A Kafka broker of a test's own, started and stopped with dev/stack (its data in
 * {@code target/broker-*}, kept across a stop and a start, as a restarted broker keeps it), for
 * tests that must take the broker away or configure it differently from the shared one.
 */
final class PrivateBroker implements AutoCloseable {
    static final Path ROOT = Path.of(System.getProperty("alice.services")).getParent();
    final Path dir = Path.of("target", "broker-" + UUID.randomUUID().toString().substring(0, 8)).toAbsolutePath();
    final int port;
    final Integer saslPort;
    private final Map<String, String> env = new HashMap<>();

    /** PLAINTEXT on a free port; with {@code scramUsers} ("name:password ...") also a SCRAM listener with ACL authorization. */
    PrivateBroker(String scramUsers) throws Exception {
        this(scramUsers, null);
    }

    /** As {@link #PrivateBroker(String)}, the SCRAM listener over TLS with {@code tls}'s broker keystore (SASL_SSL). */
    PrivateBroker(String scramUsers, TestCertificates tls) throws Exception {
        port = freePort();
        env.put("ALICE_STACK_DIR", dir.toString());
        env.put("ALICE_KAFKA_PORT", "" + port);
        env.put("ALICE_KAFKA_CONTROLLER_PORT", "" + freePort());
        if (scramUsers != null) {
            saslPort = freePort();
            env.put("ALICE_KAFKA_SASL_PORT", "" + saslPort);
            env.put("ALICE_KAFKA_SCRAM_USERS", scramUsers);
            if (tls != null) {
                env.put("ALICE_KAFKA_SSL_KEYSTORE", tls.brokerKeystore.toString());
                env.put("ALICE_KAFKA_SSL_KEYSTORE_PASSWORD", tls.password);
            }
        } else {
            saslPort = null;
        }
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    void start() throws Exception {
        stack("kafka-start");
    }

    /**
     * Starts the broker with a second {@code kafka-start} issued while the first is still starting it
     * (its process alive, not listening yet — as a run restarting its broker meets a second command):
     * the second waits for it and succeeds rather than refusing a broker that is not up yet.
     */
    void startWhileStarting() throws Exception {
        Files.createDirectories(dir);
        var pb = new ProcessBuilder(ROOT.resolve("dev/stack").toString(), "kafka-start").redirectErrorStream(true);
        pb.environment().putAll(env);
        Process first = pb.start();
        Path pid = dir.resolve("kafka/kafka.pid");
        for (int i = 0; i < 600 && Files.notExists(pid) && first.isAlive(); i++) {
            Thread.sleep(100);
        }
        String second = stack("kafka-start");
        String out = new String(first.getInputStream().readAllBytes());
        assertEquals(0, first.waitFor(), "dev/stack kafka-start: " + out);
        assertTrue(second.contains("alive but not listening yet; waiting for it") || second.contains("already running"), second);
    }

    void stop() throws Exception {
        stack("kafka-stop");
    }

    @Override
    public void close() throws Exception {
        stop();
    }

    private String stack(String command) throws Exception {
        Files.createDirectories(dir);
        var pb = new ProcessBuilder(ROOT.resolve("dev/stack").toString(), command).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), "dev/stack " + command + ": " + out);
        return out;
    }

    static int freePort() throws Exception {
        try (var s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
