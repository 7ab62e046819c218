package ai.openalice.rl.e2e;

import ai.openalice.rl.testkit.TestStack;
import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The packaged services started as processes on the test broker and database, each on a free port, logs in target/. */
final class Services implements AutoCloseable {
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final String suffix;
    final Map<String, Integer> ports = new LinkedHashMap<>();
    private final Map<String, Process> processes = new LinkedHashMap<>();

    Services(String suffix) {
        this.suffix = suffix;
    }

    static int freePort() throws Exception {
        try (var s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    void start(String service, String... properties) throws Exception {
        int port = ports.containsKey(service) ? ports.get(service) : freePort();
        ports.put(service, port);
        Path jar = Path.of(System.getProperty("alice.services"), service, "target", "quarkus-app", "quarkus-run.jar");
        var cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-Dquarkus.http.port=" + port, "-Dalice.topic-suffix=" + suffix,
                "-Dkafka.bootstrap.servers=" + TestStack.kafkaBootstrap(),
                "-Dquarkus.datasource.jdbc.url=" + TestStack.jdbcUrl(),
                "-Dquarkus.datasource.reactive.url=" + System.getProperty("alice.db.reactive-url"),
                "-Dquarkus.datasource.username=" + TestStack.dbUser(), "-Dquarkus.datasource.password=" + TestStack.dbPassword(),
                "-Dai.djl.offline=true", "-Dai.djl.pytorch.num_threads=1"));
        cmd.addAll(List.of(properties));
        cmd.addAll(List.of("-jar", jar.toString()));
        processes.put(service, new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(new File("target/e2e-" + service + ".log")).start());
    }

    URI uri(String service, String path) {
        return URI.create("http://127.0.0.1:" + ports.get(service) + path);
    }

    String get(String service, String path) throws Exception {
        var r = HTTP.send(HttpRequest.newBuilder(uri(service, path)).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(service + " " + path + ": " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    /** Waits until every started service answers ready. */
    void awaitReady(Duration wait) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        for (String s : processes.keySet()) {
            while (true) {
                if (!processes.get(s).isAlive()) {
                    throw new AssertionError(s + " exited with " + processes.get(s).exitValue() + "; see target/e2e-" + s + ".log");
                }
                try {
                    get(s, "/q/health/ready");
                    break;
                } catch (Exception notYet) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError(s + " not ready after " + wait + "; see target/e2e-" + s + ".log");
                    }
                    Thread.sleep(500);
                }
            }
        }
    }

    @Override
    public void close() throws Exception {
        for (var p : processes.values()) {
            p.destroy();
        }
        for (var p : processes.values()) {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }
}
