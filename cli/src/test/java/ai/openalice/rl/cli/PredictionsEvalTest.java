package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.harness.FlakyRule;
import ai.openalice.rl.harness.Verdict;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code eval --predictions} on the bundled calc tasks in real local sandboxes: SWE-bench's
 * predictions in, SWE-bench's report out — one resolved (the gold patch), one empty patch, and one
 * prediction for no task (submitted, not counted); then the report's classes for verdicts the
 * tests did not reach, from verdicts given by hand.
 */
class PredictionsEvalTest {
    static final Path TASKS = Path.of("..", "examples", "tasks", "calc.jsonl").toAbsolutePath().normalize();
    static final String ROOT = Path.of("/tmp", "alice-rl-test-cli-eval").toString();

    @TempDir
    Path dir;

    @Test
    void writesSweBenchsReport() throws Exception {
        var m = new ObjectMapper();
        List<JsonNode> tasks = Files.readAllLines(TASKS).stream().map(l -> {
            try {
                return m.readTree(l);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).toList();
        Path preds = dir.resolve("preds.jsonl");
        Files.write(preds, List.of(
                m.writeValueAsString(m.createObjectNode().put("instance_id", "example__calc-1").put("model_name_or_path", "acme/coder-7b")
                        .put("model_patch", tasks.get(0).get("patch").asText())),
                m.writeValueAsString(m.createObjectNode().put("instance_id", "example__calc-2").put("model_name_or_path", "acme/coder-7b")
                        .put("model_patch", "")),
                m.writeValueAsString(m.createObjectNode().put("instance_id", "example__calc-9").put("model_name_or_path", "acme/coder-7b")
                        .put("model_patch", "diff --git a/x b/x\n"))));
        Path report = dir.resolve("report.json");
        var out = new StringWriter();
        int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(new StringWriter())).execute("eval", "--tasks",
                TASKS.toString(), "--predictions", preds.toString(), "--report", report.toString(), "--sandbox-root", ROOT);
        assertEquals(0, exit, out.toString());
        JsonNode r = m.readTree(report.toFile());
        assertEquals(2, r.get("total_instances").asInt());
        assertEquals(3, r.get("submitted_instances").asInt());
        assertEquals(1, r.get("resolved_instances").asInt());
        assertEquals("example__calc-1", r.get("resolved_ids").get(0).asText());
        assertEquals("example__calc-2", r.get("empty_patch_ids").get(0).asText());
        assertEquals(0, r.get("error_instances").asInt());
        assertEquals(0, r.get("incomplete_ids").size());
        assertEquals(2, r.get("schema_version").asInt());
        assertTrue(out.toString().contains("2 instances: 1 resolved, 0 unresolved, 1 empty patches, 0 errors, 0 incomplete"), out.toString());
    }

    @Test
    void verdictsWithoutTestResultsAreErrorsAndABrokenEnvironmentIsNamed() throws Exception {
        var tasks = TaskReader.read(TASKS).stream()
                .map(l -> ((TaskReader.Line.Valid) l).task()).toList();
        var preds = Map.of("example__calc-1", new PredictionsEval.Prediction("example__calc-1", "m", "diff"),
                "example__calc-2", new PredictionsEval.Prediction("example__calc-2", "m", "diff"));
        JsonNode r = PredictionsEval.report(tasks, preds, (task, patch) -> task.instanceId().endsWith("1")
                ? verdict(task.instanceId(), VerificationStatus.PATCH_FAILED, "hunk 1 FAILED", Verdict.Cause.PATCH)
                : verdict(task.instanceId(), VerificationStatus.UNRESOLVED, "exited 1 before any test reported",
                        Verdict.Cause.ENVIRONMENT));
        assertEquals("example__calc-1", r.get("error_ids").get(0).asText(), "a patch that does not apply: SWE-bench's error");
        assertEquals("patch_failed: hunk 1 FAILED", r.get("failure_reasons").get("example__calc-1").asText());
        assertEquals("example__calc-2", r.get("unresolved_ids").get(0).asText());
        assertEquals("example__calc-2", r.get("infra_failure_ids").get(0).asText(), "the environment's failure is named, and still counted");
        assertEquals(1, r.get("completed_instances").asInt());
    }

    static Verdict verdict(String id, VerificationStatus status, String reason,
            Verdict.Cause cause) {
        return new Verdict(id, status, Map.of(), Map.of(), List.of(), FlakyRule.STRICT,
                1, 10, reason, "", 1, cause, null);
    }
}
