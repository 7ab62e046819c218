package ai.openalice.rl.tracking;

import com.fasterxml.jackson.databind.ObjectMapper;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.testkit.RealMlflow;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A training run recorded off the caller's thread, against a real MLflow server; and MLflow away or refusing. */
class MlflowRunTest {
    private final MlflowClient client = new MlflowClient(RealMlflow.url());

    /** Run ids kept in memory, as the trainer keeps them in its database. */
    static final class Ids implements MlflowRun.RunIds {
        final AtomicReference<String> id = new AtomicReference<>();

        @Override
        public Optional<String> load() {
            return Optional.ofNullable(id.get());
        }

        @Override
        public void save(String runId) {
            id.set(runId);
        }
    }

    @Test
    void aResumedRunIsTheSameMlflowRunAndGoesOn() throws Exception {
        var ids = new Ids();
        String experiment = "resume-" + UUID.randomUUID();
        String first;
        try (var run = MlflowRun.resumeOrCreate(client, experiment, "tiny-swe", Map.of("alice-rl.learner", "djl"), ids)) {
            var values = new LinkedHashMap<String, Double>();
            values.put("loss", 0.5);
            values.put("mean_reward", Double.NaN); // a step without rewards: no point rather than a NaN
            run.log(1, values);
            run.params(Map.of("lr", "1e-6"), Map.of());
            run.artifact("checkpoints/v1/manifest.json", "{}".getBytes(StandardCharsets.UTF_8));
            run.end("FINISHED");
            assertTrue(run.flush(Duration.ofSeconds(30)));
            first = run.run().orElseThrow().runId();
            assertEquals(first, ids.id.get(), "the id is kept for the next start");
        }
        assertEquals("FINISHED", client.getRun(first).orElseThrow().status());
        try (var again = MlflowRun.resumeOrCreate(client, experiment, "tiny-swe", Map.of(), ids)) {
            again.log(2, Map.of("loss", 0.25));
            again.params(Map.of("lr", "3e-6", "mode", "rl"), Map.of()); // MLflow refuses a second value of a parameter
            assertTrue(again.flush(Duration.ofSeconds(30)));
            assertEquals(first, again.run().orElseThrow().runId(), "resumed, not a second run");
            assertEquals(0, again.refused(), "nothing refused");
        }
        assertEquals(Map.of("lr", "1e-6", "mode", "rl"), client.params(first), "a parameter keeps its first value; a new one is added");
        assertEquals("3e-6", tag(first, "changed.lr"), "the value it changed to, as a tag");
        assertEquals("RUNNING", client.getRun(first).orElseThrow().status(), "running again");
        JsonNode h = client.get("metrics/get-history?run_id=" + first + "&metric_key=loss");
        assertEquals(2, h.path("metrics").size());
        assertEquals(0, client.get("metrics/get-history?run_id=" + first + "&metric_key=mean_reward").path("metrics").size());
        assertEquals(1, client.post("runs/search", searchBody(client.experiment(experiment))).path("runs").size(), "one run in the experiment");
    }

    private String tag(String runId, String key) {
        for (JsonNode t : client.get("runs/get?run_id=" + runId).at("/run/data/tags")) {
            if (t.path("key").asText().equals(key)) {
                return t.path("value").asText();
            }
        }
        return null;
    }

    private static JsonNode searchBody(String experimentId) {
        var b = new ObjectMapper().createObjectNode();
        b.putArray("experiment_ids").add(experimentId);
        return b;
    }

    @Test
    void mlflowAwayNeverHoldsTheCallerAndWhatWaitsIsKept() throws Exception {
        int port;
        try (var s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (var run = MlflowRun.resumeOrCreate(new MlflowClient(URI.create("http://127.0.0.1:" + port)), "x", "x", Map.of(), new Ids())) {
            for (int step = 0; step < 100; step++) {
                run.log(step, Map.of("loss", 1.0 / (step + 1)));
            }
            assertFalse(run.flush(Duration.ofSeconds(2)), "nothing can be sent");
            assertEquals(100, run.pending());
            assertNotNull(run.away(), "said why it waits");
            assertTrue(run.run().isEmpty());
            assertEquals(0, run.leftOut());
        }
    }

    @Test
    void aRunThatCannotBeOpenedIsSaidAndNothingMoreIsSent() throws Exception {
        try (var run = MlflowRun.attach(client, "0123456789abcdef0123456789abcdef")) {
            run.log(1, Map.of("x", 1.0));
            assertFalse(run.flush(Duration.ofSeconds(10)));
            assertEquals(1, run.refused());
            assertEquals(0, run.pending(), "dropped with the reason logged, not kept forever");
            run.log(2, Map.of("x", 2.0));
            assertEquals(0, run.pending());
        }
    }
}
