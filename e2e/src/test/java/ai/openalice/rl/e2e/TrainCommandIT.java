package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.AliceRl;
import ai.openalice.rl.cli.suite.TinySwe;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.testkit.Engines;
import ai.openalice.rl.testkit.RealMlflow;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code alice-rl train} with its embedded defaults, briefly: its own Kafka broker, the machine's
 * PostgreSQL, the six services as processes, the user's task file (eight tiny-swe tasks written by
 * the test, two of them held out by the seed), one supervised warm-start step on their oracle trajectories, a minute of RL, a held-out probe, the report — and everything it started
 * stopped at the end; meanwhile every socket its processes listen on is a loopback one (what
 * {@code ss -ltnp} would show), a real Prometheus scrapes the services ({@link Scraper}) and the run is
 * recorded in a real MLflow server ({@link MlflowChecks}). (Whether the policy learns is measured by long runs, not here.)
 */
class TrainCommandIT {
    @Test
    void theMainJobRunsAndStopsEverythingItStarted() throws Exception {
        Path root = Path.of(System.getProperty("alice.services")).getParent();
        System.setProperty("alice.root", root.toString());
        Path state = Path.of("target", "train-it-" + System.nanoTime()).toAbsolutePath();
        var out = new StringWriter();
        var sockets = new ConcurrentHashMap<String, ListeningSockets.Socket>();
        var watching = new AtomicBoolean(true);
        var scraper = new Scraper(state.resolveSibling(state.getFileName() + "-prometheus"));
        Thread watcher = Thread.ofPlatform().daemon().start(() -> {
            while (watching.get()) {
                try {
                    ListeningSockets.ofDescendants().forEach(k -> sockets.putIfAbsent(k.pid() + " " + k.address(), k));
                    scraper.watch(sockets.values());
                } catch (Exception e) { // one bad look (a process gone mid-scan) must not end the watching: it said nothing before
                    System.err.println("[e2e] watching the job's sockets: " + e);
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        System.setProperty("alice.tty", "true"); // the status block as a terminal shows it (the README's picture)
        Path tasks = TinySwe.generate(state.resolveSibling(state.getFileName() + "-data"), 8, 0, 5).train();
        int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(out)).execute("train", "--state", state.toString(),
                "--tasks", tasks.toString(), "--heldout", "2", "--group-size", "2", "--batch-groups", "1", "--warm-start-steps", "1", "--minutes", "2",
                "--probe-every", "0", "--probe-k", "1", "--mlflow", RealMlflow.url().toString(), "--mlflow-experiment", state.getFileName().toString());
        System.clearProperty("alice.tty");
        watching.set(false);
        watcher.join();
        assertEquals(0, exit, out.toString());
        scraper.check();
        MlflowChecks.check(RealMlflow.url(), out.toString(), Path.of("target", "screenshots"));
        TerminalShot.screenshot(TerminalShot.lastBlock(out.toString()), Path.of("target", "screenshots", "status-block.png"));
        assertTrue(sockets.values().stream().allMatch(ListeningSockets.Socket::loopback), "listening beyond loopback: " + sockets.values());
        long services = sockets.values().stream().map(ListeningSockets.Socket::pid).distinct().count();
        assertTrue(services >= 7, "six services and the broker seen listening, on loopback: " + sockets.values());
        assertTrue(out.toString().contains("[train] warm start: 1 supervised steps"), out.toString());
        assertTrue(out.toString().contains("[train] tasks from " + tasks + ": 6 training, 2 held out (2 task(s) drawn with seed 1)"), out.toString());
        var metrics = Files.readAllLines(state.resolve("metrics.jsonl"));
        assertTrue(metrics.stream().anyMatch(l -> l.contains("\"phase\":\"sft\"")) && metrics.stream().anyMatch(l -> l.contains("\"phase\":\"rl\"")));
        var probes = Files.readAllLines(state.resolve("probes.jsonl"));
        assertEquals(1, probes.size(), "the final held-out evaluation");
        var last = EventCodec.mapper().readTree(probes.getFirst());
        assertTrue(last.path("final").asBoolean() && last.path("heldOut").asInt() == 2, last.toString());
        assertTrue(out.toString().contains("[final-eval] "), "the final evaluation is shown as it goes");
        if (last.hasNonNull("cut")) { // the 2-minute limit came first on a busy machine: said, in the report too
            assertTrue(Files.readString(state.resolve("report/index.html")).contains(last.get("cut").asText()), last.toString());
        } else {
            assertEquals(2, last.at("/overall/tasks").asInt(), last.toString());
        }
        assertTrue(Files.exists(state.resolve("warm-start.done")));
        assertTrue(Files.exists(state.resolve("checkpoints/v1/model.onnx")), "the warm start published v1");
        String html = Files.readString(state.resolve("report/index.html"));
        for (int i = 0; i < 5; i++) {
            assertTrue(html.contains("chart-" + i + ".png") && Files.size(state.resolve("report/chart-" + i + ".png")) > 1000);
        }
        assertTrue(html.contains("Recent trajectories"), "trajectories rendered from the trainer's database");
        // (an engine another test of this JVM started, as TinkerLoopIT's Tinker server, is not the main job's)
        assertTrue(Engines.otherChildren().isEmpty(), "no service left running: " + Engines.otherChildren());
        assertTrue(out.toString().contains("[stack] stopping Kafka"), "the broker it started is stopped");
        for (String s : List.of("inference", "trainer", "rubric-prm", "verifier", "sandbox-runner", "task-dispatcher")) {
            assertTrue(Files.exists(state.resolve("logs/" + s + ".log")), s);
        }
    }

    /**
     * A real Prometheus (Debian's) scraping the running services: started once the six answer
     * {@code /q/metrics}; afterwards every dashboard query and every alert expression of the chart
     * (its default thresholds) is evaluated at the last moment all six were up — without error, the
     * dashboard's with data (but for the two that only have data when it happens), and every metric
     * an alert reads with data.
     */
    static final class Scraper {
        /** Dashboard panels whose series exist only when it happens: a tinker learner's engine, a group left out of training. */
        private static final Set<String> ONLY_WHEN_IT_HAPPENS = Set.of("trainer_learner_engine_away", "trainer_dropped_total");
        private final Path dir;
        private final List<String> targets = new ArrayList<>();
        private RealPrometheus prometheus;
        private long allUpAt;

        Scraper(Path dir) {
            this.dir = dir;
        }

        void watch(Collection<ListeningSockets.Socket> sockets) throws Exception {
            if (prometheus == null) {
                var found = new ArrayList<String>();
                for (var socket : sockets) {
                    String target = "127.0.0.1:" + socket.address().substring(socket.address().lastIndexOf(':') + 1);
                    if (!found.contains(target) && servesMetrics(target)) {
                        found.add(target);
                    }
                }
                if (found.size() >= 6) {
                    targets.addAll(found);
                    prometheus = RealPrometheus.scraping(targets, dir);
                }
                return;
            }
            if (prometheus.targets().values().stream().filter("up"::equals).count() >= 6) {
                allUpAt = System.currentTimeMillis();
            }
        }

        private static boolean servesMetrics(String target) {
            try {
                var r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://" + target + "/q/metrics")).timeout(Duration.ofSeconds(2))
                        .build(), HttpResponse.BodyHandlers.ofString());
                return r.statusCode() == 200 && r.body().contains("jvm_memory_used_bytes");
            } catch (Exception e) {
                return false;
            }
        }

        void check() throws Exception {
            assertNotNull(prometheus, "Prometheus never started: the six services were not seen serving /q/metrics");
            try {
                assertTrue(allUpAt > 0, "Prometheus never saw the six services up: " + prometheus.targets());
                double at = (allUpAt - 3000) / 1000.0;
                Path chart = Path.of(System.getProperty("alice.services")).getParent().resolve("helm/alice-rl");
                var problems = new ArrayList<String>();
                for (var q : RealPrometheus.dashboardQueries(chart).entrySet()) {
                    JsonNode r = prometheus.query(q.getValue(), at);
                    boolean optional = RealPrometheus.metrics(q.getValue()).stream().anyMatch(ONLY_WHEN_IT_HAPPENS::contains);
                    if (!"success".equals(r.path("status").asText())) {
                        problems.add("the dashboard's '" + q.getKey() + "': " + r);
                    } else if (!optional && r.at("/data/result").isEmpty()) {
                        problems.add("the dashboard's '" + q.getKey() + "' has no data: " + q.getValue());
                    }
                }
                var alerts = RealPrometheus.alertExpressions(chart);
                assertTrue(alerts.size() >= 8, alerts.keySet().toString());
                for (var a : alerts.entrySet()) {
                    JsonNode r = prometheus.query(a.getValue(), at);
                    if (!"success".equals(r.path("status").asText())) {
                        problems.add(a.getKey() + ": " + r);
                    }
                    for (String metric : RealPrometheus.metrics(a.getValue())) {
                        if (prometheus.query(metric, at).at("/data/result").isEmpty()) {
                            problems.add(a.getKey() + " reads " + metric + ", which has no data");
                        }
                    }
                }
                assertTrue(problems.isEmpty(), String.join("\n", problems));
            } finally {
                prometheus.close();
            }
        }
    }
}
