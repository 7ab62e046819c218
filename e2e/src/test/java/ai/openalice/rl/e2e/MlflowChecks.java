package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.testkit.HeadlessChromium;
import ai.openalice.rl.tracking.MlflowClient;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What {@code alice-rl train --mlflow} left in a real MLflow server, read through its REST API and
 * through its pages in headless Chromium: one run for the warm start and the RL after it (the trainer
 * restarted between them and resumed the run, its changed mode a tag), FINISHED; the trainer's and the CLI's parameters;
 * per-step metrics from both phases, throughput and the held-out pass@1; the report and a
 * checkpoint's manifest as artifacts; every episode a trace of the run, with its turns as spans. The
 * screenshots are those of docs/observability.md.
 */
final class MlflowChecks {
    private static final Pattern RUN_LINK = Pattern.compile("\\[train\\] MLflow: (\\S+)/#/experiments/(\\d+)/runs/([0-9a-f]+)");

    private MlflowChecks() {}

    static void check(URI mlflow, String output, Path screenshots) throws Exception {
        var m = RUN_LINK.matcher(output);
        assertTrue(m.find(), "the run's MLflow page is given: " + output);
        String experiment = m.group(2);
        String runId = m.group(3);
        var client = new MlflowClient(mlflow);
        JsonNode run = client.get("runs/get?run_id=" + runId).path("run");
        assertEquals("FINISHED", run.at("/info/status").asText());
        var search = EventCodec.mapper().createObjectNode();
        search.putArray("experiment_ids").add(experiment);
        assertEquals(1, client.post("runs/search", search).path("runs").size(), "the warm start and RL are one run (the trainer resumed it)");
        Set<String> params = keys(run.at("/data/params"));
        assertTrue(params.containsAll(Set.of("learner", "lr", "model", "group_size", "tasks", "sandbox")), "the trainer's and the CLI's: " + params);
        Set<String> metrics = keys(run.at("/data/metrics"));
        assertTrue(metrics.containsAll(Set.of("loss", "mean_reward", "tokens_per_second", "staleness_mean", "rollouts_per_second", "held_out_pass1")),
                metrics.toString());
        // the run began with the warm start's trainer (mode sft) and the RL trainer resumed it: its mode is a changed setting
        assertEquals("sft", client.params(runId).get("mode"));
        assertTrue(run.at("/data/tags").toString().contains("{\"key\":\"changed.mode\",\"value\":\"rl\"}"), run.at("/data/tags").toString());
        JsonNode loss = client.get("metrics/get-history?run_id=" + runId + "&metric_key=loss").path("metrics");
        assertTrue(loss.size() >= 1, "the warm start's step at least: " + loss);
        assertEquals(1, loss.get(0).path("step").asLong(), "step numbers are the trainer's");
        JsonNode files = client.get("artifacts/list?run_id=" + runId + "&path=report").path("files");
        assertTrue(keys(files, "path").contains("report/index.html"), files.toString());
        assertTrue(keys(client.get("artifacts/list?run_id=" + runId + "&path=checkpoints/v1").path("files"), "path")
                .contains("checkpoints/v1/manifest.json"), "the warm start's checkpoint manifest");
        JsonNode traces = client.getPath("/api/2.0/mlflow/traces?experiment_ids=" + experiment + "&max_results=100&filter="
                + URLEncoder.encode("metadata.`mlflow.sourceRun` = '" + runId + "'", StandardCharsets.UTF_8)).path("traces");
        assertFalse(traces.isEmpty(), "the episodes are traces of the run");
        String traceId = withTurns(client, traces);
        String base = mlflow.toString();
        String runPage = base + "/#/experiments/" + experiment + "/runs/" + runId;
        String dom = HeadlessChromium.dom(runPage, 20_000);
        assertTrue(dom.contains("held_out_pass1") && dom.contains("mean_reward"), "the run's page lists its metrics");
        String tracePage = base + "/#/experiments/" + experiment + "/traces?selectedEvaluationId=" + traceId;
        String traceDom = HeadlessChromium.dom(tracePage, 20_000);
        assertTrue(traceDom.contains("turn 0: "), "the trace view shows the episode's turns");
        HeadlessChromium.screenshot(base + "/#/experiments/" + experiment + "/runs/" + runId + "/model-metrics", screenshots.resolve("mlflow-run.png"),
                1600, 1000, 60_000); // the charts draw after their fetches: a minute of virtual time
        HeadlessChromium.screenshot(tracePage, screenshots.resolve("mlflow-trace.png"), 1600, 1000, 60_000); // the drawer slides in
    }

    /**
     * A trace of the list whose episode has turns (a masked one may have none) — one with tool calls
     * when there is one (the warm start's oracle episodes have them; a minute-old policy's may not); its id.
     */
    private static String withTurns(MlflowClient client, JsonNode traces) {
        String withTurns = null;
        for (JsonNode t : traces) {
            String id = t.path("request_id").asText();
            JsonNode spans = client.getPath("/api/3.0/mlflow/traces/get?trace_id=" + id).at("/trace/spans");
            if (spans.size() > 1) {
                assertTrue(spans.toString().contains("alice_rl.step_utility"), "a scored turn carries its step utility");
                withTurns = withTurns == null ? id : withTurns;
                if (spans.toString().contains(": file_editor\"")) {
                    return id;
                }
            }
        }
        assertTrue(withTurns != null, "no trace with a turn among " + traces.size());
        return withTurns;
    }

    private static Set<String> keys(JsonNode items) {
        return keys(items, "key");
    }

    private static Set<String> keys(JsonNode items, String field) {
        var out = new HashSet<String>();
        items.forEach(i -> out.add(i.path(field).asText()));
        return out;
    }
}
