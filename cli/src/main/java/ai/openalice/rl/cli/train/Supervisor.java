package ai.openalice.rl.cli.train;

import ai.openalice.rl.auth.Tokens;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The services as child processes of {@code alice-rl train}: the packaged Quarkus apps, each on a
 * free port, logs in {@code <state>/logs}, stopped (SIGTERM, then SIGKILL after 30 s) on close.
 * Each runs from a copy of its {@code quarkus-app} taken at its first start (next to the logs, in
 * {@code apps/}, removed on close): a rebuild while a run goes on for days rewrites the jars in
 * {@code target/} in place, which crashes a JVM that still loads classes from them.
 */
public final class Supervisor implements AutoCloseable {
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Path root;
    private final Path logs;
    private final Path apps;
    private final List<String> common;
    /**
     * Where the services listen: loopback only. The embedded run needs nothing else, and on a laptop
     * or a shared server any other address would hand task submission, evaluations and the policy
     * to whoever can reach the machine.
     */
    static final String HOST = "127.0.0.1";

    private final Map<String, Integer> ports = new LinkedHashMap<>();
    private final Map<String, Process> processes = new LinkedHashMap<>();
    private final Map<String, List<String>> settings = new LinkedHashMap<>();
    private final Map<String, Map<String, String>> environments = new LinkedHashMap<>();
    private final Map<String, Integer> restarts = new LinkedHashMap<>();
    private final Map<String, Integer> notLive = new LinkedHashMap<>();
    /** Where each service's log stood when it was last started, and whether its wait for the database was said. */
    private final Map<String, Long> logFrom = new LinkedHashMap<>();
    private final Map<String, Boolean> saidWaiting = new LinkedHashMap<>();

    private final LocalAuth auth;
    private final Map<String, String> commonEnvironment;

    /** With this run's keys and tokens in {@code auth/} beside the logs ({@link LocalAuth}): every service checks tokens, and so is called. */
    public Supervisor(Path root, Path logs, List<String> common) throws IOException {
        this(root, logs, common, Map.of());
    }

    /** ... and environment variables every service gets (Kafka client security: {@code KAFKA_SASL_JAAS_CONFIG}...). */
    public Supervisor(Path root, Path logs, List<String> common, Map<String, String> commonEnvironment) throws IOException {
        this.commonEnvironment = Map.copyOf(commonEnvironment);
        this.root = root;
        this.logs = logs;
        this.apps = logs.resolveSibling("apps");
        this.auth = LocalAuth.prepare(logs.resolveSibling("auth"));
        var all = new ArrayList<>(auth.serviceSettings());
        all.addAll(common);
        this.common = List.copyOf(all);
    }

    public LocalAuth auth() {
        return auth;
    }

    /** Copies a folder tree (files keep their modification times); what {@code to} held before is removed first. */
    static void snapshot(Path from, Path to) throws IOException {
        delete(to);
        Files.createDirectories(to.getParent());
        try (var files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, to.resolve(from.relativize(f).toString()), StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
    }

    static void delete(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (var files = Files.walk(dir)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(f);
                }
            }
        }
    }

    static int freePort() throws Exception {
        try (var s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * A free port that none of {@code taken} holds. A port found free is free only until a process
     * binds it, and a service takes seconds to start: the kernel may hand the same port out again
     * meanwhile (seen in CI: inference and the dispatcher given one port, the dispatcher then failing
     * to bind it five times over).
     */
    static int freePort(Collection<Integer> taken) throws Exception {
        for (int i = 0; i < 100; i++) {
            int p = freePort();
            if (!taken.contains(p)) {
                return p;
            }
        }
        throw new IllegalStateException("no free port outside " + taken + " after 100 tries");
    }

    public static Path app(Path root, String service) {
        return root.resolve("services").resolve(service).resolve("target/quarkus-app/quarkus-run.jar");
    }

    /** util-linux's {@code setsid}: it makes a new session and executes the command in place (the process is the service's JVM). */
    static final Path SETSID = Path.of("/usr/bin/setsid");

    /** Starts (or restarts, on the same port) a service with extra {@code -D} settings. */
    public synchronized void start(String service, List<String> settings) throws Exception {
        start(service, settings, Map.of());
    }

    /** ... and environment variables, where this process's environment does not set them already. */
    public synchronized void start(String service, List<String> settings, Map<String, String> environment) throws Exception {
        stop(service);
        notLive.remove(service);
        this.settings.put(service, List.copyOf(settings));
        this.environments.put(service, Map.copyOf(environment));
        boolean first = !ports.containsKey(service);
        int port = first ? freePort(ports.values()) : ports.get(service);
        ports.put(service, port);
        Files.createDirectories(logs);
        var cmd = new ArrayList<String>();
        if (Files.isExecutable(SETSID)) { // a session of its own: a terminal's Ctrl-C reaches the run, which stops the services in order
            cmd.add(SETSID.toString());
        }
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx768m", "-XX:+UseSerialGC",
                "-Dquarkus.http.port=" + port, "-Dquarkus.http.host=" + HOST));
        cmd.addAll(common);
        cmd.addAll(settings);
        Path copy = apps.resolve(service);
        if (first || !Files.exists(copy)) { // a restart runs the same build as the first start
            snapshot(app(root, service).getParent(), copy);
        }
        cmd.addAll(List.of("-jar", copy.resolve("quarkus-run.jar").toString()));
        var pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        environment.forEach(pb.environment()::putIfAbsent);
        pb.environment().putAll(commonEnvironment);
        File log = logs.resolve(service + ".log").toFile();
        logFrom.put(service, log.length());
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log));
        processes.put(service, pb.start());
    }

    /** The process id of each service running now. */
    public synchronized Map<String, Long> pids() {
        var out = new LinkedHashMap<String, Long>();
        processes.forEach((name, p) -> {
            if (p.isAlive()) {
                out.put(name, p.pid());
            }
        });
        return out;
    }

    public URI uri(String service, String path) {
        return URI.create("http://127.0.0.1:" + ports.get(service) + path);
    }

    /** A request to a service as the run's operator (its token holds every role). */
    private HttpRequest.Builder request(String service, String path) {
        return HttpRequest.newBuilder(uri(service, path)).timeout(Duration.ofSeconds(60)).header("Authorization",
                Tokens.authorization(auth.operatorToken()));
    }

    public String get(String service, String path) throws Exception {
        var r = HTTP.send(request(service, path).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException(service + " " + path + ": " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    public String post(String service, String path, String json) throws Exception {
        var r = HTTP.send(request(service, path).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException(service + " " + path + ": " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    /** Restarts a service that exits while starting gets, as one that dies later does ({@code alice-rl train}'s limit). */
    static final int START_RESTARTS = 5;

    /**
     * Waits until every running service answers ready. One that exits while starting (on a busy
     * machine Flyway may not get a database connection in time, and the service gives up) is started
     * again, a line on standard error saying so, up to {@link #START_RESTARTS} times, counted with the
     * restarts {@link #restartFailed} makes; names the one that never came up, with its log.
     */
    public void awaitReady(Duration wait) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        for (String name : new ArrayList<>(processes.keySet())) {
            while (true) {
                CtrlC.check();
                Process p = processes.get(name);
                if (!p.isAlive()) {
                    restartWhileStarting(name, p.exitValue());
                    continue;
                }
                try {
                    get(name, "/q/health/ready");
                    break;
                } catch (Exception notYet) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(name + " not ready after " + wait.toSeconds() + " s; see " + logs.resolve(name + ".log"));
                    }
                    String db = saidWaiting.getOrDefault(name, false) ? null : StartWaits.database(logs.resolve(name + ".log"), logFrom.getOrDefault(name, 0L));
                    if (db != null) {
                        System.err.println("[train] " + name + " waits for PostgreSQL (" + db + "); it starts once the database answers");
                        saidWaiting.put(name, true);
                    }
                    Thread.sleep(500);
                }
            }
        }
    }

    private synchronized void restartWhileStarting(String name, int status) throws Exception {
        int n = restarts.merge(name, 1, Integer::sum);
        if (n > START_RESTARTS) {
            throw new IllegalStateException(name + " exited with status " + status + " while starting, after " + START_RESTARTS + " restarts; see "
                    + logs.resolve(name + ".log"));
        }
        System.err.println("[train] " + name + " exited with status " + status + " while starting; starting it again (restart " + n + "/"
                + START_RESTARTS + "; see " + logs.resolve(name + ".log") + ")");
        Thread.sleep(1000L * n); // what it waited for (the database, the broker) gets a moment longer each time
        start(name, settings.get(name), environments.get(name));
    }

    /**
     * Restarts services that exited, or that answered their liveness check ({@code /q/health/live})
     * with an error {@code threshold} times in a row (as Kubernetes' liveness probe would: a
     * service whose Kafka channel failed keeps running but says it is not live). Each resumes from
     * its own state: the trainer from its last checkpoint, the others from the database and Kafka
     * offsets. At most {@code limit} restarts per service; returns what was restarted and why.
     * A service that does not answer at all (starting, or busy) is not counted as not live.
     */
    public synchronized List<String> restartFailed(int limit, int threshold) throws Exception {
        var done = new ArrayList<String>();
        for (var w : watched.entrySet()) {
            if (w.getValue().alive()) {
                continue;
            }
            int n = restarts.merge(w.getKey(), 1, Integer::sum);
            if (n > limit) {
                throw new IllegalStateException(w.getKey() + " is not running, after " + limit + " restarts");
            }
            w.getValue().restart();
            done.add(w.getKey() + " (it was not running; restart " + n + "/" + limit + ")");
        }
        for (var e : new ArrayList<>(processes.entrySet())) {
            String name = e.getKey();
            String why;
            if (!e.getValue().isAlive()) {
                why = "exited with status " + e.getValue().exitValue();
            } else if (notLive(name) >= threshold) {
                why = "not live for " + threshold + " checks in a row";
            } else {
                continue;
            }
            int n = restarts.merge(name, 1, Integer::sum);
            if (n > limit) {
                throw new IllegalStateException(name + " " + why + ", after " + limit + " restarts; see " + logs.resolve(name + ".log"));
            }
            start(name, settings.get(name), environments.get(name));
            done.add(name + " " + why + " (restart " + n + "/" + limit + ")");
        }
        return done;
    }

    /** Something the run started besides the services — its own Kafka broker — watched as they are. */
    public interface Watched {
        boolean alive();

        /** Starts it again where it was (the same port and data): what it held survives. */
        void restart() throws Exception;
    }

    private final Map<String, Watched> watched = new LinkedHashMap<>();

    /** Has {@link #restartFailed} restart {@code what} too when it stops, counted as a service's restarts are. */
    public synchronized void watch(String name, Watched what) {
        watched.put(name, what);
    }

    /** Restarts so far, by name (services and watched parts). */
    public synchronized Map<String, Integer> restarts() {
        return Map.copyOf(restarts);
    }

    /** Asks a running service whether it is live: the number of error answers in a row so far. */
    private int notLive(String name) {
        int status;
        try {
            status = HTTP.send(HttpRequest.newBuilder(uri(name, "/q/health/live")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return notLive.getOrDefault(name, 0); // no answer: starting up, or busy
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
        return status / 100 == 2 ? notLive.merge(name, 0, (a, b) -> 0) : notLive.merge(name, 1, Integer::sum);
    }

    private void stopTogether(List<String> names, Duration wait) {
        names.forEach(n -> processes.get(n).destroy());
        long deadline = System.nanoTime() + wait.toNanos();
        for (String s : names) {
            Process p = processes.remove(s);
            if (!exitsBy(p, deadline)) {
                p.destroyForcibly();
                exitsBy(p, System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
                System.err.println("[train] " + s + " did not stop within " + wait.toSeconds() + " s: killed (what it left is cleared when the run resumes)");
            }
        }
    }

    /** Waits for {@code p} until {@code deadline} (System.nanoTime), whatever interrupts come meanwhile (a Ctrl-C while the run stops). */
    private static boolean exitsBy(Process p, long deadline) {
        while (true) {
            try {
                return p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException again) {
                // stopping goes on
            }
        }
    }

    public synchronized void stop(String service) throws InterruptedException {
        Process p = processes.remove(service);
        if (p != null) {
            p.destroy();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Stopped first, and waited for: what hands out and plays episodes. While the others still
     * answer, the runner's episodes in flight end (the runner gives back its leases and its sandboxes'
     * mounts), instead of retrying a policy that went away while the runner stopped.
     */
    static final List<String> FIRST = List.of("task-dispatcher", "sandbox-runner");
    /** How long each of the two waves gets to stop before what still runs is killed. */
    static final Duration FIRST_WAIT = Duration.ofSeconds(20);
    static final Duration REST_WAIT = Duration.ofSeconds(8);

    /**
     * Stops every service in two waves ({@link #FIRST}, then the rest), each asked at once (SIGTERM:
     * Quarkus shuts down gracefully) and what still runs after its wait killed, one line each on
     * standard error. Not cut short by an interrupt (Ctrl-C interrupts the main thread that then stops the run).
     */
    @Override
    public synchronized void close() throws InterruptedException {
        Thread.interrupted();
        var first = new ArrayList<String>();
        var rest = new ArrayList<String>();
        processes.keySet().forEach(n -> (FIRST.contains(n) ? first : rest).add(n));
        stopTogether(first, FIRST_WAIT);
        stopTogether(rest, REST_WAIT);
        try {
            delete(apps);
        } catch (IOException e) {
            System.err.println("[supervisor] could not remove " + apps + ": " + e);
        }
    }
}
