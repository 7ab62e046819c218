package ai.openalice.rl.cli.train;

import ai.openalice.rl.events.EventCodec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.imageio.ImageIO;

/**
 * {@code <state>/report/index.html}: PNG plots of reward, r_exec, held-out pass@1, loss and
 * throughput over steps (from {@code metrics.jsonl} and {@code probes.jsonl}), the probes as a
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
                series("Throughput", "minutes", "rollouts/s", minutes(metrics), "min", "rolloutsPerSecond"));
        var html = new StringBuilder("<!doctype html><html><head><meta charset=\"utf-8\"><title>alice-rl training report</title>"
                + "<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto}pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap}"
                + "td,th{padding:2px 8px;text-align:right}</style></head><body><h1>alice-rl training report</h1>");
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
        var resources = read(state.resolve("resources.jsonl"));
        if (!resources.isEmpty()) {
            var held = List.of(lines("Resident memory per process", "minutes", "MiB", resources, "rss"),
                    lines("JVM heap in use per service", "minutes", "MiB", resources, "heap"),
                    lines("Database size", "minutes", "MiB", resources, "dbBytes"));
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
                    for (JsonNode turn : ref.path("trajectory").path("turns")) {
                        html.append("<p><b>turn ").append(turn.path("index").asInt()).append("</b>: ").append(esc(turn.at("/action/tool").asText("(unreadable)")))
                                .append(" ").append(esc(turn.at("/action/args").toString())).append("</p><pre>")
                                .append(esc(trim(turn.path("observation").asText(""), 1500))).append("</pre>");
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

    private static List<JsonNode> minutes(List<JsonNode> metrics) {
        if (metrics.isEmpty()) {
            return metrics;
        }
        long t0 = metrics.getFirst().path("t").asLong();
        return metrics.stream().map(m -> (JsonNode) ((ObjectNode) m.deepCopy())
                .put("min", (m.path("t").asLong() - t0) / 60000.0)).toList();
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

    private static final Color[] PALETTE = {new Color(31, 119, 180), new Color(255, 127, 14), new Color(44, 160, 44), new Color(214, 39, 40),
        new Color(148, 103, 189), new Color(140, 86, 75), new Color(227, 119, 194), new Color(127, 127, 127)};

    static BufferedImage draw(Lines s) {
        var all = s.lines().values().stream().flatMap(List::stream).toList();
        int w = 720, h = 300, l = 70, b = 40, t = 20, rgt = 20;
        var img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        var g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, w, h);
        g.setColor(Color.DARK_GRAY);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawLine(l, h - b, w - rgt, h - b);
        g.drawLine(l, t, l, h - b);
        g.drawString(s.x(), w / 2, h - 8);
        g.drawString(s.y(), l + 8, t + 10);
        if (all.isEmpty()) {
            g.drawString("no data yet", w / 2 - 30, h / 2);
            return img;
        }
        double x0 = all.stream().mapToDouble(p -> p[0]).min().orElse(0), x1 = all.stream().mapToDouble(p -> p[0]).max().orElse(1);
        double y0 = all.stream().mapToDouble(p -> p[1]).min().orElse(0), y1 = all.stream().mapToDouble(p -> p[1]).max().orElse(1);
        if (x1 == x0) {
            x1 = x0 + 1;
        }
        if (y1 == y0) {
            y1 = y0 + 1;
        }
        g.drawString(String.format("%.3g", y1), 4, t + 4);
        g.drawString(String.format("%.3g", y0), 4, h - b);
        g.drawString(String.format("%.4g", x0), l, h - b + 15);
        g.drawString(String.format("%.4g", x1), w - rgt - 40, h - b + 15);
        g.setStroke(new BasicStroke(2f));
        int i = 0;
        for (var line : s.lines().entrySet()) {
            g.setColor(PALETTE[i % PALETTE.length]);
            if (!line.getKey().isEmpty()) {
                g.drawString(line.getKey(), w - rgt - 130, t + 14 * (i + 1));
            }
            i++;
            int px = -1, py = -1;
            for (double[] p : line.getValue()) {
                int x = l + (int) ((p[0] - x0) / (x1 - x0) * (w - l - rgt));
                int y = h - b - (int) ((p[1] - y0) / (y1 - y0) * (h - b - t));
                if (px >= 0) {
                    g.drawLine(px, py, x, y);
                }
                g.fillOval(x - 2, y - 2, 5, 5);
                px = x;
                py = y;
            }
        }
        g.dispose();
        return img;
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
