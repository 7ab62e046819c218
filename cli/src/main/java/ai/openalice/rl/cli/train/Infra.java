package ai.openalice.rl.cli.train;

import ai.openalice.rl.cli.KafkaClientConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

/**
 * Kafka and PostgreSQL for {@code alice-rl train}: external ones when given, else a single-node
 * Kafka broker of its own (data in {@code <state>/stack}, port 19092 — or, when another run holds
 * it, a free one, kept in {@code <state>/kafka-port}) and the machine's PostgreSQL
 * through {@code dev/stack} (installed and started when missing, as root), with a database of its
 * own per state folder ({@code alice_rl_train_<id>}).
 */
final class Infra implements AutoCloseable {
    static final int KAFKA_PORT = 19092;
    private int kafkaPort;
    private final Path root;
    private final Path state;
    private final PrintWriter out;
    private boolean startedKafka;
    String bootstrap;
    String jdbcUrl;
    /** Client settings for an external broker ({@code --kafka-config}); empty for the run's own. */
    Properties kafkaClient = new Properties();
    String user = "alice";
    String password = "alice";

    Infra(Path root, Path state, PrintWriter out) {
        this.root = root;
        this.state = state;
        this.out = out;
    }

    void start(String kafka, String db, String dbUser, String dbPassword) throws Exception {
        if (kafka != null) {
            bootstrap = kafka;
        } else {
            startKafka();
        }
        if (db != null) {
            jdbcUrl = db;
            user = dbUser;
            password = dbPassword;
        } else {
            stack("pg-start");
            String name = database();
            try (var c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/alice_rl", user, password);
                    var st = c.createStatement(); var rs = st.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name + "'")) {
                if (!rs.next()) {
                    st.execute("CREATE DATABASE " + name);
                }
            }
            jdbcUrl = "jdbc:postgresql://127.0.0.1:5432/" + name;
        }
    }

    /** The run's own broker, on this state folder's port, its data in {@code <state>/stack}. */
    void startKafka() throws Exception {
        kafkaPort = kafkaPort();
        startedKafka = true; // before it answers: a run stopped while it starts still stops it
        stack("kafka-start");
        bootstrap = "127.0.0.1:" + kafkaPort;
    }

    /** Whether the run started its own broker (the supervisor then watches it). */
    boolean startedKafka() {
        return startedKafka;
    }

    /** Whether the run's own broker process is alive (its pid file, as dev/stack keeps it). */
    boolean kafkaAlive() {
        try {
            long pid = Long.parseLong(Files.readString(state.resolve("stack/kafka/kafka.pid")).strip());
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        } catch (IOException | NumberFormatException e) {
            return false;
        }
    }

    /**
     * Starts the run's own broker again after it died, on the same ports and data folder: KRaft
     * recovers its log, and the topics and the groups' committed offsets are as they were.
     */
    void restartKafka() throws Exception {
        stack("kafka-start");
    }

    /** The run's own database: named once per state folder (kept in {@code <state>/database}), so two runs never share state. */
    private String database() throws IOException {
        Path file = state.resolve("database");
        if (Files.exists(file)) {
            return Files.readString(file).strip();
        }
        String name = "alice_rl_train_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Files.writeString(file, name + "\n");
        return name;
    }

    /**
     * The broker's port (its controller listens on the next one): this state folder's, else 19092
     * when it and 19093 are free, else a free pair; kept so that the broker's data keeps its address.
     */
    int kafkaPort() throws IOException {
        Path file = state.resolve("kafka-port");
        if (Files.exists(file)) {
            return Integer.parseInt(Files.readString(file).strip());
        }
        int port = KAFKA_PORT;
        while (!free(port) || !free(port + 1)) {
            try (var s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
        }
        Files.writeString(file, port + "\n");
        return port;
    }

    private static boolean free(int port) {
        try (var s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    String reactiveUrl() {
        return jdbcUrl.substring("jdbc:".length());
    }

    /** The Kafka client settings every service gets in its environment (a JAAS config is a secret: never a -D on a command line). */
    Map<String, String> serviceEnvironment() {
        return KafkaClientConfig.environment(kafkaClient);
    }

    /** The settings every service gets. */
    List<String> serviceSettings() {
        return new ArrayList<>(List.of("-Dkafka.bootstrap.servers=" + bootstrap, "-Dquarkus.datasource.jdbc.url=" + jdbcUrl,
                "-Dquarkus.datasource.reactive.url=" + reactiveUrl(), "-Dquarkus.datasource.username=" + user,
                "-Dquarkus.datasource.password=" + password));
    }

    private void stack(String command) throws Exception {
        // in a session of its own (as the services are): a terminal's Ctrl-C does not cut a broker's start or stop in half
        var cmd = new ArrayList<String>();
        if (Files.isExecutable(Supervisor.SETSID)) {
            cmd.add(Supervisor.SETSID.toString());
        }
        cmd.addAll(List.of(root.resolve("dev/stack").toString(), command));
        var pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(Map.of("ALICE_STACK_DIR", state.resolve("stack").toString(), "ALICE_KAFKA_PORT", Integer.toString(kafkaPort),
                "ALICE_KAFKA_CONTROLLER_PORT", Integer.toString(kafkaPort + 1)));
        Process p = pb.start();
        String text = new String(p.getInputStream().readAllBytes());
        out.print(text);
        out.flush();
        if (!command.endsWith("-stop")) {
            CtrlC.check(); // a Ctrl-C while it ran (in a session of its own, it was not cut short)
        }
        if (p.waitFor() != 0) {
            throw new IllegalStateException("dev/stack " + command + " failed: " + text.strip());
        }
    }

    @Override
    public void close() throws Exception {
        Thread.interrupted(); // stopping the broker is not to be cut short by the Ctrl-C that ends the run
        if (startedKafka) {
            stack("kafka-stop");
        }
    }
}
