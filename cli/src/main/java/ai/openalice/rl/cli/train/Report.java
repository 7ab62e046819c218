package ai.openalice.rl.cli.train;

import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.harness.HackAttempts;
import com.fasterxml.jackson.databind.JsonNode;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.imageio.ImageIO;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * {@code <state>/report/index.html}: charts (XChart, as PNG) of reward, r_exec, held-out pass@1, loss and
 * throughput (a one-minute moving average) over steps (from {@code metrics.jsonl} and {@code probes.jsonl}), the probes as a
 * table, what the run held over time (memory of each process and the database's size, from
 * {@code resources.jsonl}), and a few recent trajectories turn by turn (read from the trainer's database).
 */
public final class Report {
    private Report() {}

    record Series(String title, String x, String y, List<double[]> points) {}

    /** Several named lines on one chart. */
    record Lines(String title, String x, String y, Map<String, List<double[]>> lines) {}

    /**
     * From {@code resources.jsonl}: minutes since the first sample against MiB, one line per key of
     * the object {@code field} (a process each), or one line when {@code field} is a number.
     */
    static Lines lines(String title, String x, String y, List<JsonNode> samples, String field) {
        var out = new TreeMap<String, List<double[]>>();
        long t0 = samples.getFirst().path("t").asLong();
        for (JsonNode s : samples) {
            double min = (s.path("t").asLong() - t0) / 60000.0;
            JsonNode v = s.path(field);
            if (v.isNumber()) {
                out.computeIfAbsent(field, k -> new ArrayList<>()).add(new double[] {min, v.asDouble() / (1 << 20)});
            }
            v.fields().forEachRemaining(e -> out.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(new double[] {min, e.getValue().asDouble() / (1 << 20)}));
        }
        return new Lines(title, x, y, out);
    }

    public static Path write(Path state) throws Exception {
        System.setProperty("java.awt.headless", "true");
        Path dir = Files.createDirectories(state.resolve("report"));
        var metrics = read(state.resolve("metrics.jsonl"));
        var probes = read(state.resolve("probes.jsonl"));
        var charts = List.of(
                series("Mean reward per step", "step", "reward", metrics, "last.step", "last.meanReward"),
                series("r_exec rate per step (hidden tests passed)", "step", "r_exec", metrics, "last.step", "last.rExecRate"),
                series("Held-out pass@1", "policy version", "pass@1", probes, "policyVersion", "overall.pass@1"),
                series("Loss per step", "step", "loss", metrics, "last.step", "last.loss"),
                throughput(metrics),
                hackRate(metrics));
        var html = new StringBuilder("<!doctype html><html><head><meta charset=\"utf-8\"><title>alice-rl training report</title>"
                + "<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto}pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap}"
                + "td,th{padding:2px 8px;text-align:right}.hack{color:#b00;font-weight:bold}</style></head><body><h1>alice-rl training report</h1>");
        html.append("<p>State: ").append(esc(state.toString())).append(". ").append(metrics.size()).append(" progress records, ").append(probes.size())
                .append(" held-out probes.</p>");
        for (int i = 0; i < charts.size(); i++) {
            String file = "chart-" + i + ".png";
            ImageIO.write(draw(charts.get(i)), "png", dir.resolve(file).toFile());
            html.append("<h2>").append(esc(charts.get(i).title())).append("</h2><img src=\"").append(file).append("\" width=\"720\">");
        }
        html.append("<h2>Held-out probes</h2><table><tr><th>version</th><th>tasks</th><th>k</th><th>pass@1</th><th>pass@k</th></tr>");
        for (JsonNode p : probes) {
            html.append("<tr><td>v").append(p.path("policyVersion").asLong()).append("</td><td>").append(p.path("tasks").asInt()).append("</td><td>")
                    .append(p.path("k").asInt()).append("</td><td>").append(fmt(p.at("/overall/pass@1"))).append("</td><td>")
                    .append(fmt(p.at("/overall/pass@k"))).append("</td></tr>");
        }
        html.append("</table>");
        for (JsonNode p : probes) {
            if (p.path("final").asBoolean(false)) {
                html.append("<p>Final evaluation at v").append(p.path("policyVersion").asLong()).append(": ").append(p.path("tasks").asInt())
                        .append(" task(s) with a scored episode of ").append(p.path("heldOut").asInt()).append(" held out")
                        .append(p.hasNonNull("cut") ? "; " + esc(p.get("cut").asText()) : "").append(".</p>");
            }
        }
        var resources = read(state.resolve("resources.jsonl"));
        if (!resources.isEmpty()) {
            var held = List.of(lines("Resident memory per process", "minutes since the start", "MiB", resources, "rss"),
                    lines("JVM heap in use per service", "minutes since the start", "MiB", resources, "heap"),
                    lines("Database size", "minutes since the start", "MiB", resources, "dbBytes"));
            html.append("<h2>Resources over time</h2><p>Sampled once a minute (").append(resources.size()).append(" samples).</p>");
            for (int i = 0; i < held.size(); i++) {
                String file = "resources-" + i + ".png";
                ImageIO.write(draw(held.get(i)), "png", dir.resolve(file).toFile());
                html.append("<h3>").append(esc(held.get(i).title())).append("</h3><img src=\"").append(file).append("\" width=\"720\">");
            }
        }
        trajectories(state, html);
        html.append("</body></html>\n");
        Path index = dir.resolve("index.html");
        Files.writeString(index, html);
        return index;
    }

    private static void trajectories(Path state, StringBuilder html) {
        Path infra = state.resolve("infra.json");
        if (!Files.exists(infra)) {
            return;
        }
        try {
            JsonNode c = EventCodec.mapper().readTree(infra.toFile());
            try (var conn = DriverManager.getConnection(c.get("jdbcUrl").asText(), c.get("user").asText(), c.get("password").asText());
                    var st = conn.createStatement();
                    var rs = st.executeQuery("(SELECT task_id, r_exec, reward, trajectory::text FROM trainer.samples WHERE r_exec = 1 AND trajectory IS NOT NULL ORDER BY received_at DESC LIMIT 2)"
                            + " UNION ALL (SELECT task_id, r_exec, reward, trajectory::text FROM trainer.samples WHERE r_exec = 0 AND trajectory IS NOT NULL ORDER BY received_at DESC LIMIT 2)")) {
                html.append("<h2>Recent trajectories</h2>");
                while (rs.next()) {
                    html.append("<h3>").append(esc(rs.getString(1))).append(" — r_exec ").append(rs.getInt(2)).append(", reward ")
                            .append(String.format("%.3f", rs.getDouble(3))).append("</h3>");
                    JsonNode ref = EventCodec.mapper().readTree(rs.getString(4));
                    var hacks = ref.path("trajectory").isObject()
                            ? HackAttempts.of(EventCodec.read(ref.get("trajectory"), Trajectory.class).turns()) : List.<HackAttempts.Attempt>of();
                    for (JsonNode turn : ref.path("trajectory").path("turns")) {
                        int index = turn.path("index").asInt();
                        html.append("<p id=\"").append(esc(rs.getString(1))).append("-turn-").append(index).append("\"><b>turn ").append(index)
                                .append("</b>: ").append(esc(turn.at("/action/tool").asText("(unreadable)"))).append(" ")
                                .append(esc(turn.at("/action/args").toString())).append("</p>");
                        hacks.stream().filter(h -> h.turn() == index).forEach(h -> html.append("<p class=\"hack\">reward-hack attempt: ")
                                .append(h.kind().wire()).append(" (").append(esc(h.detail())).append(")</p>"));
                        html.append("<pre>").append(esc(trim(turn.path("observation").asText(""), 1500))).append("</pre>");
                    }
                }
            }
        } catch (Exception e) {
            html.append("<p>(trajectories unavailable: ").append(esc(e.getMessage())).append(")</p>");
        }
    }

    static List<JsonNode> read(Path file) throws Exception {
        var out = new ArrayList<JsonNode>();
        if (Files.exists(file)) {
            for (String l : Files.readAllLines(file)) {
                if (!l.isBlank()) {
                    out.add(EventCodec.mapper().readTree(l));
                }
            }
        }
        return out;
    }

    /**
     * The share of the runner's episodes with a reward-hack attempt (a test edited or deleted, test
     * configuration written, a skip marker, a forced exit, the verifier's paths looked for), over the
     * five minutes before each record, against minutes: whether training raises it. A count that
     * falls (the runner restarted) starts the window again.
     */
    static Series hackRate(List<JsonNode> metrics) {
        var pts = new ArrayList<double[]>();
        var rows = metrics.stream().filter(m -> m.path("runnerEpisodes").isNumber() && m.path("hackRollouts").isNumber()).toList();
        long t0 = rows.isEmpty() ? 0 : rows.getFirst().path("t").asLong();
        int from = 0;
        for (int i = 0; i < rows.size(); i++) {
            JsonNode now = rows.get(i);
            if (i > 0 && now.get("runnerEpisodes").asDouble() < rows.get(i - 1).get("runnerEpisodes").asDouble()) {
                from = i;
            }
            while (from + 1 < i && rows.get(from + 1).path("t").asLong() <= now.path("t").asLong() - 300_000) {
                from++;
            }
            JsonNode then = rows.get(from);
            double episodes = now.get("runnerEpisodes").asDouble() - then.get("runnerEpisodes").asDouble();
            if (episodes > 0) {
                double share = (now.get("hackRollouts").asDouble() - then.get("hackRollouts").asDouble()) / episodes;
                pts.add(new double[] {(now.path("t").asLong() - t0) / 60000.0, 100 * share});
            }
        }
        return new Series("Reward-hack attempts (share of rollouts over 5 minutes)", "minutes since the start", "% of rollouts", pts);
    }

    /**
     * Rollouts per second against minutes, as a one-minute moving average of the scored count
     * (recomputed from {@code rolloutsScored}, so a run recorded before the status line averaged reads alike).
     */
    static Series throughput(List<JsonNode> metrics) {
        var pts = new ArrayList<double[]>();
        var avg = new Throughput(60_000);
        long t0 = metrics.isEmpty() ? 0 : metrics.getFirst().path("t").asLong();
        for (JsonNode m : metrics) {
            if (m.path("rolloutsScored").isNumber()) {
                long t = m.path("t").asLong();
                pts.add(new double[] {(t - t0) / 60000.0, avg.observe(t, m.get("rolloutsScored").asLong())});
            }
        }
        return new Series("Throughput (one-minute moving average)", "minutes since the start", "rollouts per second", pts);
    }

    static Series series(String title, String x, String y, List<JsonNode> rows, String xField, String yField) {
        var pts = new ArrayList<double[]>();
        double lastX = Double.NaN;
        for (JsonNode r : rows) {
            JsonNode xv = field(r, xField);
            JsonNode yv = field(r, yField);
            if (xv.isNumber() && yv.isNumber() && xv.asDouble() != lastX) {
                pts.add(new double[] {xv.asDouble(), yv.asDouble()});
                lastX = xv.asDouble();
            }
        }
        return new Series(title, x, y, pts);
    }

    private static JsonNode field(JsonNode r, String path) {
        if (r.has(path)) {
            return r.get(path);
        }
        return r.at("/" + path.replace('.', '/'));
    }

    static BufferedImage draw(Series s) {
        return draw(new Lines(s.title(), s.x(), s.y(), Map.of("", s.points())));
    }

    /**
     * A chart by XChart: readable ticks (as many as fit, at round values, with thousands separators),
     * gridlines, the axes titled with their units, a legend when several lines share it.
     */
    static BufferedImage draw(Lines s) {
        XYChart chart = new XYChartBuilder().width(720).height(320).title(s.title()).xAxisTitle(s.x()).yAxisTitle(s.y()).build();
        var st = chart.getStyler();
        st.setChartBackgroundColor(Color.WHITE);
        st.setPlotBackgroundColor(Color.WHITE);
        st.setPlotGridLinesVisible(true);
        st.setPlotGridLinesColor(new Color(220, 220, 220));
        st.setXAxisDecimalPattern("#,##0.##");
        st.setYAxisDecimalPattern("#,##0.###");
        st.setMarkerSize(5);
        st.setLegendVisible(s.lines().size() > 1);
        st.setLegendPosition(Styler.LegendPosition.OutsideE);
        boolean any = false;
        for (var line : s.lines().entrySet()) {
            if (line.getValue().isEmpty()) {
                continue;
            }
            double[] xs = line.getValue().stream().mapToDouble(p -> p[0]).toArray();
            double[] ys = line.getValue().stream().mapToDouble(p -> p[1]).toArray();
            chart.addSeries(line.getKey().isEmpty() ? s.y() : line.getKey(), xs, ys).setMarker(SeriesMarkers.CIRCLE);
            any = true;
        }
        if (!any) {
            st.setLegendVisible(false);
            var blank = chart.addSeries(" ", new double[] {0, 1}, new double[] {0, 1});
            blank.setMarker(SeriesMarkers.NONE);
            blank.setLineColor(new Color(0, 0, 0, 0));
            chart.addAnnotation(new AnnotationText("no data yet", 0.5, 0.5, false));
        }
        return BitmapEncoder.getBufferedImage(chart);
    }

    private static String fmt(JsonNode n) {
        return n.isNumber() ? String.format("%.3f", n.asDouble()) : "-";
    }

    private static String trim(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n) + "\n…";
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
