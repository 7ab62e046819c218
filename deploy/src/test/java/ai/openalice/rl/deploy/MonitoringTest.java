package ai.openalice.rl.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's alert rules and Grafana dashboard, checked by Debian's promtool (Prometheus 2.42):
 * the rules load, and promtool's unit tests (series written by hand in alerts-test.yaml) show each
 * alert fires when it must and not before; every dashboard query is valid PromQL (loaded as a
 * recording rule); every metric either reads is one a service registers.
 */
class MonitoringTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern METRIC = Pattern.compile("\\b(?:trainer|runner|inference|dispatcher|verifier|rubric|alice)_[a-z_]+\\b");

    private static List<io.fabric8.kubernetes.api.model.HasMetadata> rendered() {
        return Chart.objects(Chart.render(Map.of("alerts.enabled", "true", "dashboard.enabled", "true")));
    }

    private static String promtool(Path dir, String... args) throws Exception {
        Path tool = Path.of("/usr/bin/promtool");
        assertTrue(Files.isExecutable(tool), "promtool (Debian's prometheus package) is missing: dev/stack install");
        var cmd = new ArrayList<String>(List.of(tool.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "promtool did not finish");
        assertEquals(0, p.exitValue(), "promtool " + String.join(" ", args) + ":\n" + out);
        return out;
    }

    @Test
    void theAlertRulesLoadAndFireWhenTheyMust(@TempDir Path dir) throws Exception {
        var rule = rendered().stream().filter(o -> o.getKind().equals("PrometheusRule")).findFirst().orElseThrow();
        Object spec = ((GenericKubernetesResource) rule).getAdditionalProperties().get("spec");
        Files.writeString(dir.resolve("alerts.rules.yaml"), Chart.SERIALIZATION.asYaml(spec));
        try (var in = MonitoringTest.class.getResourceAsStream("/alerts-test.yaml")) {
            Files.write(dir.resolve("alerts-test.yaml"), in.readAllBytes());
        }
        assertTrue(promtool(dir, "check", "rules", "alerts.rules.yaml").contains("SUCCESS: 8 rules found"), "three disk rules and five of the loop");
        assertTrue(promtool(dir, "test", "rules", "alerts-test.yaml").contains("SUCCESS"));
        assertRegistered(Files.readString(dir.resolve("alerts.rules.yaml")));
    }

    @Test
    void everyDashboardQueryIsValidPromQlOverMetricsTheServicesExport(@TempDir Path dir) throws Exception {
        var map = Chart.of(rendered(), ConfigMap.class).stream().filter(c -> c.getMetadata().getName().equals("alice-rl-grafana-dashboard"))
                .findFirst().orElseThrow();
        assertEquals("1", map.getMetadata().getLabels().get("grafana_dashboard"), "the label Grafana's sidecar loads dashboards by");
        JsonNode dashboard = JSON.readTree(map.getData().get("alice-rl.json"));
        var rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
        var exprs = new StringBuilder();
        int n = 0;
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText();
                rules.append("      - record: dashboard:panel_").append(++n).append("\n        expr: ").append(JSON.writeValueAsString(expr)).append('\n');
                exprs.append(expr).append('\n');
            }
        }
        assertTrue(n >= 12, "a query per panel: " + n);
        Files.writeString(dir.resolve("dashboard.rules.yaml"), rules);
        assertTrue(promtool(dir, "check", "rules", "dashboard.rules.yaml").contains("SUCCESS: " + n + " rules found"));
        assertRegistered(exprs.toString());
    }

    /** Every alice-rl metric named in {@code text} is registered in a service's or a library's main sources. */
    private static void assertRegistered(String text) throws IOException {
        var sources = new StringBuilder();
        for (String root : List.of("../services", "../libs")) {
            try (Stream<Path> files = Files.walk(Path.of(root))) {
                for (Path f : files.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/main/")).toList()) {
                    sources.append(Files.readString(f));
                }
            }
        }
        var names = new TreeSet<String>();
        Matcher m = METRIC.matcher(text);
        while (m.find()) {
            names.add(m.group());
        }
        assertTrue(names.size() >= 5, names.toString());
        for (String name : names) {
            if (name.startsWith("alice_rl") || name.equals("alice_table_bytes_total")) {
                continue;
            }
            assertTrue(sources.indexOf("\"" + name + "\"") >= 0, name + " is registered by a service");
        }
    }
}
