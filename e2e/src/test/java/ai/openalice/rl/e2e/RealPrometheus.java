package ai.openalice.rl.e2e;

import ai.openalice.rl.events.EventCodec;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's Prometheus server (2.42), started by a test to scrape the services of a running loop
 * every 2 s at {@code /q/metrics}, and asked afterwards what it holds (its HTTP query API). Also the
 * chart's alert expressions with the default values filled in, and the dashboard's queries.
 */
final class RealPrometheus implements AutoCloseable {
    static final Path BINARY = Path.of("/usr/bin/prometheus");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private final Process process;
    private final URI base;

    private RealPrometheus(Process process, URI base) {
        this.process = process;
        this.base = base;
    }

    /** Scrapes {@code targets} (host:port) every 2 s; its data in {@code dir}; ready when its API answers. */
    static RealPrometheus scraping(List<String> targets, Path dir) throws Exception {
        Files.createDirectories(dir);
        var config = new StringBuilder("global:\n  scrape_interval: 2s\n  evaluation_interval: 2s\nscrape_configs:\n  - job_name: alice-rl\n"
                + "    metrics_path: /q/metrics\n    static_configs:\n      - targets: [");
        config.append(String.join(", ", targets.stream().map(t -> "'" + t + "'").toList())).append("]\n");
        Files.writeString(dir.resolve("prometheus.yml"), config);
        int port;
        try (var s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Process p = new ProcessBuilder(BINARY.toString(), "--config.file=" + dir.resolve("prometheus.yml"), "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port).redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
        var prometheus = new RealPrometheus(p, URI.create("http://127.0.0.1:" + port));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                if (HTTP.send(HttpRequest.newBuilder(prometheus.base.resolve("/-/ready")).build(), HttpResponse.BodyHandlers.discarding())
                        .statusCode() == 200) {
                    return prometheus;
                }
            } catch (IOException notYet) {
                // starting
            }
            if (System.nanoTime() > deadline || !p.isAlive()) {
                p.destroyForcibly();
                throw new IllegalStateException("Prometheus did not become ready; see " + dir.resolve("prometheus.log"));
            }
            Thread.sleep(200);
        }
    }

    /** The answer to an instant query at {@code atSeconds}: {status, data: {result}} or {status: error, error}. */
    JsonNode query(String expr, double atSeconds) throws Exception {
        String q = "/api/v1/query?query=" + URLEncoder.encode(expr, StandardCharsets.UTF_8) + "&time=" + atSeconds;
        var r = HTTP.send(HttpRequest.newBuilder(base.resolve(q)).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        return EventCodec.mapper().readTree(r.body());
    }

    /** The targets' health, as Prometheus last scraped them: address → "up" or "down". */
    Map<String, String> targets() throws Exception {
        var r = HTTP.send(HttpRequest.newBuilder(base.resolve("/api/v1/targets")).build(), HttpResponse.BodyHandlers.ofString());
        var out = new LinkedHashMap<String, String>();
        for (JsonNode t : EventCodec.mapper().readTree(r.body()).at("/data/activeTargets")) {
            out.put(t.at("/labels/instance").asText(), t.path("health").asText());
        }
        return out;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }

    /** The chart's alert expressions (templates/alerts.yaml) with the default values (values.yaml's alerts block) filled in. */
    static Map<String, String> alertExpressions(Path chart) throws IOException {
        var defaults = new LinkedHashMap<String, String>();
        boolean inAlerts = false;
        for (String line : Files.readAllLines(chart.resolve("values.yaml"))) {
            if (!line.startsWith(" ") && !line.isBlank()) {
                inAlerts = line.startsWith("alerts:");
            } else if (inAlerts) {
                Matcher m = Pattern.compile("^  (\\w+): (\\d+)\\s*$").matcher(line);
                if (m.matches()) {
                    defaults.put(m.group(1), m.group(2));
                }
            }
        }
        var out = new LinkedHashMap<String, String>();
        String alert = null;
        for (String line : Files.readAllLines(chart.resolve("templates/alerts.yaml"))) {
            String t = line.strip();
            if (t.startsWith("- alert: ")) {
                alert = t.substring("- alert: ".length());
            } else if (t.startsWith("expr: ") && alert != null) {
                Matcher v = Pattern.compile("\\{\\{\\s*\\.Values\\.alerts\\.(\\w+)(\\s*\\|\\s*int64)?\\s*}}").matcher(t.substring("expr: ".length()));
                var sb = new StringBuilder();
                while (v.find()) {
                    String value = defaults.get(v.group(1));
                    if (value == null) {
                        throw new IllegalStateException("alerts." + v.group(1) + " has no default in values.yaml");
                    }
                    v.appendReplacement(sb, value);
                }
                v.appendTail(sb);
                out.put(alert, sb.toString());
            }
        }
        return out;
    }

    /** The dashboard's queries: panel title → expression. */
    static Map<String, String> dashboardQueries(Path chart) throws IOException {
        var out = new LinkedHashMap<String, String>();
        for (JsonNode panel : EventCodec.mapper().readTree(chart.resolve("files/grafana-dashboard.json").toFile()).path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                out.put(panel.path("title").asText(), target.path("expr").asText());
            }
        }
        return out;
    }

    /** The alice-rl metric names an expression reads. */
    static List<String> metrics(String expr) {
        var out = new ArrayList<String>();
        Matcher m = Pattern.compile("\\b(?:trainer|runner|inference|dispatcher|verifier|rubric|alice|jvm)_[a-z_]+\\b").matcher(expr);
        while (m.find()) {
            if (!out.contains(m.group())) {
                out.add(m.group());
            }
        }
        return out;
    }
}
