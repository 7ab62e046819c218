package ai.openalice.rl.tracking;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.testkit.RealMlflow;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The REST client against a real MLflow server (PyPI's mlflow, started once for this JVM). */
class MlflowClientTest {
    private final MlflowClient client = new MlflowClient(RealMlflow.url());

    @Test
    void anExperimentIsMadeOnceAndFoundByName() {
        String name = "exp-" + UUID.randomUUID();
        String id = client.experiment(name);
        assertEquals(id, client.experiment(name), "the second call finds the first one's experiment");
        assertEquals(name, client.get("experiments/get?experiment_id=" + id).at("/experiment/name").asText());
    }

    @Test
    void metricsPastOneBatchAllArriveAndNonFiniteOnesAreLeftOut() {
        var run = client.createRun(client.experiment("alice-rl-test"), "batches", 1000, Map.of("alice-rl.test", "yes"));
        var metrics = new ArrayList<MlflowClient.Metric>();
        for (int step = 0; step < 1234; step++) { // MLflow takes at most 1000 metrics a call: two calls
            metrics.add(new MlflowClient.Metric("loss", step / 2.0, 1_000_000L + step, step));
        }
        metrics.add(new MlflowClient.Metric("loss", Double.NaN, 2_000_000L, 5000));
        var params = new HashMap<String, String>();
        for (int i = 0; i < 150; i++) { // and at most 100 parameters
            params.put("p" + i, Integer.toString(i));
        }
        params.put("long", "x".repeat(7000));
        client.logBatch(run.runId(), metrics, params, Map.of("t", "v"));
        var history = history(run.runId(), "loss");
        assertEquals(1234, history.size(), "every finite value, none twice; NaN left out");
        assertEquals(616.5, history.stream().filter(m -> m.path("step").asLong() == 1233).findFirst().orElseThrow().path("value").asDouble());
        JsonNode data = client.get("runs/get?run_id=" + run.runId()).at("/run/data");
        int found = 0;
        String longValue = null;
        for (JsonNode p : data.path("params")) {
            found++;
            if (p.path("key").asText().equals("long")) {
                longValue = p.path("value").asText();
            }
        }
        assertEquals(151, found);
        assertEquals(MlflowClient.MAX_PARAM_CHARS, longValue.length(), "cut to what MLflow takes");
        // 6000 characters in all with the note: 5976 kept of 7000, so 1024 more
        assertTrue(longValue.endsWith("x… (1024 more characters)"), longValue.substring(longValue.length() - 40));
    }

    private List<JsonNode> history(String runId, String key) {
        var out = new ArrayList<JsonNode>();
        String token = "";
        do {
            JsonNode page = client.get("metrics/get-history?run_id=" + runId + "&metric_key=" + key + "&max_results=500"
                    + (token.isEmpty() ? "" : "&page_token=" + token));
            page.path("metrics").forEach(out::add);
            token = page.path("next_page_token").asText("");
        } while (!token.isEmpty());
        return out;
    }

    @Test
    void artifactsGoThroughTheServerAndComeBackTheSame() {
        var run = client.createRun(client.experiment("alice-rl-test"), "artifacts", System.currentTimeMillis(), Map.of());
        byte[] bytes = "{\"step\": 4}\n".getBytes(StandardCharsets.UTF_8);
        client.upload(run, "checkpoints/v4/manifest.json", bytes);
        assertArrayEquals(bytes, client.download(run, "checkpoints/v4/manifest.json"));
        JsonNode listed = client.get("artifacts/list?run_id=" + run.runId() + "&path=checkpoints/v4");
        assertEquals("checkpoints/v4/manifest.json", listed.at("/files/0/path").asText());
        assertThrows(IllegalArgumentException.class, () -> client.upload(run, "../escape", bytes));
        var elsewhere = new MlflowClient.Run(run.runId(), run.experimentId(), "RUNNING", "s3://bucket/1/x/artifacts");
        var e = assertThrows(MlflowException.class, () -> client.upload(elsewhere, "a.txt", bytes));
        assertTrue(e.getMessage().contains("s3://bucket/1/x/artifacts") && e.getMessage().contains("--serve-artifacts"), e.getMessage());
    }

    @Test
    void aRunEndsAndAnUnknownRunIsRefusedByName() {
        var run = client.createRun(client.experiment("alice-rl-test"), "ends", 1000, Map.of());
        client.setStatus(run.runId(), "FINISHED", 2000);
        assertEquals("FINISHED", client.getRun(run.runId()).orElseThrow().status());
        assertTrue(client.getRun("0123456789abcdef0123456789abcdef").isEmpty());
        var e = assertThrows(MlflowException.class, () -> client.logBatch("0123456789abcdef0123456789abcdef",
                List.of(new MlflowClient.Metric("x", 1, 1, 1)), Map.of(), Map.of()));
        assertEquals("RESOURCE_DOES_NOT_EXIST", e.errorCode(), e.getMessage());
    }

    @Test
    void aServerThatIsNotThereIsUnavailableNotARefusal() throws Exception {
        int port;
        try (var s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        var away = new MlflowClient(URI.create("http://127.0.0.1:" + port));
        assertThrows(MlflowUnavailableException.class, () -> away.experiment("x"));
    }

    @Test
    void credentialsAsMlflowsOwnClientsReadThem() {
        assertEquals("Bearer t0k", MlflowClient.authorizationFromEnvironment(Map.of("MLFLOW_TRACKING_TOKEN", "t0k ")));
        // base64("alice:s3cret") = YWxpY2U6czNjcmV0
        assertEquals("Basic YWxpY2U6czNjcmV0", MlflowClient.authorizationFromEnvironment(Map.of("MLFLOW_TRACKING_USERNAME", "alice",
                "MLFLOW_TRACKING_PASSWORD", "s3cret")));
        assertEquals(null, MlflowClient.authorizationFromEnvironment(Map.of()));
    }
}
