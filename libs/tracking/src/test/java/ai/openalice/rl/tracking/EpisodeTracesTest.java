package ai.openalice.rl.tracking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.MaskKind;
import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.RolloutRef;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.testkit.RealMlflow;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Episodes exported over OTLP into a real MLflow server, read back through its trace API. */
class EpisodeTracesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final MlflowClient client = new MlflowClient(RealMlflow.url());

    static RolloutRef ref(UUID rollout) {
        return new RolloutRef("acme__calc-42", 1, "0".repeat(64), UUID.randomUUID(), rollout, 2, 1, 4, 3, RolloutRef.Mode.TRAIN, null,
                new RolloutRef.Sampling(1.0, 1.0, 256, 17L));
    }

    static Trajectory trajectory(String longObservation) {
        return new Trajectory(List.of(
                new Turn(0, List.of(1, 2, 3), List.of(4, 5), List.of(-0.1, -0.2), 3,
                        new Action("bash", JSON.createObjectNode().put("command", "pytest -q"), null), longObservation, 120, 880),
                new Turn(1, List.of(6), List.of(7, 8, 9), List.of(-0.1, -0.2, -0.3), 3,
                        new Action("file_editor", JSON.createObjectNode().put("command", "str_replace").put("path", "calc/ops.py"), null),
                        "The file calc/ops.py has been edited.", 200, 50),
                new Turn(2, List.of(10), List.of(11), List.of(-0.5), 4, new Action("submit", JSON.createObjectNode(), null), "Submitted.", 30, 0)));
    }

    @Test
    void anEpisodeIsATraceWithATurnPerSpanLinkedToItsRun() throws Exception {
        var run = client.createRun(client.experiment("alice-rl-traces"), "traces", System.currentTimeMillis(), Map.of());
        UUID rollout = UUID.randomUUID();
        String observation = "[exit code 1]\n" + "E".repeat(2500);
        var scored = new RewardScored(ref(rollout), false, null, null, Termination.SUBMITTED, 1, 0.75, 0.8, 0.95, 1,
                List.of(new RewardScored.Criterion("localisation", 0.5, 1.0, "1/1 gold files")), new TrajectoryRef.Inline(trajectory(observation)),
                List.of(0.7, 1.0, 1.0));
        Instant scoredAt = Instant.parse("2026-12-04T12:00:00Z");
        try (var traces = EpisodeTraces.toMlflow(RealMlflow.url(), () -> run, "alice-rl-trainer")) {
            traces.submit(scored, () -> trajectory(observation), scoredAt);
            assertTrue(traces.flush(Duration.ofSeconds(60)));
            assertEquals(1, traces.exported());
        }
        String traceId = "tr-" + rollout.toString().replace("-", ""); // the rollout id is the trace id
        JsonNode trace = client.getPath("/api/3.0/mlflow/traces/get?trace_id=" + traceId).path("trace");
        assertEquals(run.experimentId(), trace.at("/trace_info/trace_location/mlflow_experiment/experiment_id").asText());
        var spans = new HashMap<String, JsonNode>();
        trace.path("spans").forEach(s -> spans.put(s.path("name").asText(), s));
        assertEquals(4, spans.size(), spans.keySet().toString());
        JsonNode root = spans.get("episode acme__calc-42 #2");
        assertEquals("AGENT", attr(root, "mlflow.spanType").path("string_value").asText());
        assertEquals(0.95, attr(root, "alice_rl.reward").path("double_value").asDouble());
        assertEquals("submitted", attr(root, "alice_rl.termination").path("string_value").asText());
        // the turns laid end to end, the last ending when the episode was scored: 1000 + 250 + 30 ms before it
        long end = scoredAt.toEpochMilli() * 1_000_000L;
        assertEquals(end, root.path("end_time_unix_nano").asLong());
        assertEquals(end - 1_280_000_000L, root.path("start_time_unix_nano").asLong());
        JsonNode bash = spans.get("turn 0: bash");
        assertEquals(root.path("span_id").asText(), bash.path("parent_span_id").asText());
        assertEquals(end - 1_280_000_000L, bash.path("start_time_unix_nano").asLong());
        assertEquals(end - 280_000_000L, bash.path("end_time_unix_nano").asLong());
        // MLflow reads OpenTelemetry's GenAI names: a tool span, the call's arguments as its inputs (stored as JSON, read back as a map)
        assertEquals("TOOL", attr(bash, "mlflow.spanType").path("string_value").asText());
        assertEquals("pytest -q", attr(bash, "mlflow.spanInputs").at("/kvlist_value/values/0/value/string_value").asText());
        assertEquals("command", attr(bash, "mlflow.spanInputs").at("/kvlist_value/values/0/key").asText());
        String head = attr(bash, "mlflow.spanOutputs").path("string_value").asText();
        assertTrue(head.equals(observation.substring(0, 2000) + "… (514 more characters)"), "the observation's first 2000 of 2514 characters");
        assertEquals(0.7, attr(bash, "alice_rl.step_utility").path("double_value").asDouble());
        assertEquals(1.0, attr(spans.get("turn 1: file_editor"), "alice_rl.step_utility").path("double_value").asDouble());
        assertEquals(4, attr(spans.get("turn 2: submit"), "alice_rl.policy_version").path("int_value").asLong());
        // linked to the run: MLflow's search of the run's traces finds it
        JsonNode ofRun = client.getPath("/api/2.0/mlflow/traces?experiment_ids=" + run.experimentId() + "&filter="
                + URLEncoder.encode("metadata.`mlflow.sourceRun` = '" + run.runId() + "'", StandardCharsets.UTF_8));
        assertEquals(traceId, ofRun.at("/traces/0/request_id").asText());
        assertEquals(HexFormat.of().formatHex(EpisodeSpans.bytes(rollout)),
                HexFormat.of().formatHex(Base64.getDecoder().decode(root.path("trace_id").asText())));
    }

    @Test
    void aMaskedEpisodeSaysWhyAndIsAnErrorInTheTraceView() throws Exception {
        var run = client.createRun(client.experiment("alice-rl-traces"), "masked", System.currentTimeMillis(), Map.of());
        UUID rollout = UUID.randomUUID();
        var scored = new RewardScored(ref(rollout), true, "episode ended in infra_error", MaskKind.EPISODE_INFRA_ERROR, Termination.INFRA_ERROR,
                null, null, 0.8, null, null, List.of(), new TrajectoryRef.Inline(new Trajectory(List.of())), null);
        try (var traces = EpisodeTraces.toMlflow(RealMlflow.url(), () -> run, "alice-rl-trainer")) {
            traces.submit(scored, () -> new Trajectory(List.of()), Instant.now());
            assertTrue(traces.flush(Duration.ofSeconds(60)));
        }
        JsonNode trace = client.getPath("/api/3.0/mlflow/traces/get?trace_id=tr-" + rollout.toString().replace("-", "")).path("trace");
        assertEquals("ERROR", trace.at("/trace_info/state").asText());
        assertEquals("episode ended in infra_error", attr(trace.at("/spans/0"), "alice_rl.mask_reason").path("string_value").asText());
    }

    static JsonNode attr(JsonNode span, String key) {
        for (JsonNode a : span.path("attributes")) {
            if (a.path("key").asText().equals(key)) {
                return a.path("value");
            }
        }
        throw new AssertionError("no attribute " + key + " on " + span.path("name").asText() + ": " + span.path("attributes"));
    }
}
