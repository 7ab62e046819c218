package ai.openalice.rl.cli;

import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.harness.Verdict;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiFunction;

/**
 * {@code alice-rl eval --predictions}: SWE-bench's predictions ({@code instance_id},
 * {@code model_name_or_path}, {@code model_patch}; JSONL or a JSON list) verified against the tasks,
 * and SWE-bench's run report (schema_version 2: resolved, unresolved, empty-patch, error and
 * incomplete ids and counts), so results compare with published leaderboards. As in SWE-bench, an
 * instance without a prediction is incomplete, an empty patch is not run, and an instance whose
 * evaluation did not produce test results (the patch did not apply, a timeout, the infrastructure)
 * is an error; a failure of the environment is counted unresolved and listed among
 * {@code infra_failure_ids} with its reason.
 */
final class PredictionsEval {
    static final ObjectMapper JSON = new ObjectMapper();

    private PredictionsEval() {}

    record Prediction(String instanceId, String model, String patch) {}

    /** The predictions by instance id; a bad entry is an {@link IllegalArgumentException} naming it. */
    static Map<String, Prediction> read(Path file) throws IOException {
        String text = Files.readString(file).strip();
        var nodes = new ArrayList<JsonNode>();
        if (text.startsWith("[")) {
            JSON.readTree(text).forEach(nodes::add);
        } else {
            for (String line : text.split("\n")) {
                if (!line.isBlank()) {
                    nodes.add(JSON.readTree(line));
                }
            }
        }
        var out = new LinkedHashMap<String, Prediction>();
        for (int i = 0; i < nodes.size(); i++) {
            JsonNode n = nodes.get(i);
            if (!n.path("instance_id").isTextual() || !n.path("model_name_or_path").isTextual()) {
                throw new IllegalArgumentException(file + ": prediction " + (i + 1) + ": instance_id and model_name_or_path are required strings");
            }
            out.put(n.get("instance_id").asText(), new Prediction(n.get("instance_id").asText(), n.get("model_name_or_path").asText(),
                    n.path("model_patch").isTextual() ? n.get("model_patch").asText() : null));
        }
        return out;
    }

    /** The run report; {@code verify} judges one task's prediction. */
    static ObjectNode report(List<Task> tasks, Map<String, Prediction> predictions, BiFunction<Task, String, Verdict> verify) {
        var completed = new TreeSet<String>();
        var resolved = new TreeSet<String>();
        var unresolved = new TreeSet<String>();
        var empty = new TreeSet<String>();
        var errors = new TreeSet<String>();
        var incomplete = new TreeSet<String>();
        var infra = new TreeSet<String>();
        var reasons = new TreeMap<String, String>();
        for (Task task : tasks) {
            String id = task.instanceId();
            Prediction p = predictions.get(id);
            if (p == null) {
                incomplete.add(id);
                continue;
            }
            if (p.patch() == null || p.patch().isEmpty()) {
                empty.add(id);
                continue;
            }
            Verdict v = verify.apply(task, p.patch());
            switch (v.status()) {
                case RESOLVED -> {
                    completed.add(id);
                    resolved.add(id);
                }
                case UNRESOLVED -> {
                    completed.add(id);
                    unresolved.add(id);
                    if (v.cause() == Verdict.Cause.ENVIRONMENT) {
                        infra.add(id);
                        reasons.put(id, v.reason());
                    }
                }
                default -> { // patch_failed, timed_out, infra_error: no test results, as SWE-bench's errors
                    errors.add(id);
                    reasons.put(id, v.status().wire() + ": " + v.reason());
                }
            }
        }
        ObjectNode r = JSON.createObjectNode();
        r.put("total_instances", tasks.size()).put("submitted_instances", predictions.size()).put("completed_instances", completed.size())
                .put("resolved_instances", resolved.size()).put("unresolved_instances", unresolved.size())
                .put("infra_failure_instances", infra.size()).put("empty_patch_instances", empty.size()).put("error_instances", errors.size());
        put(r, "completed_ids", completed);
        put(r, "incomplete_ids", incomplete);
        put(r, "empty_patch_ids", empty);
        put(r, "submitted_ids", new TreeSet<>(predictions.keySet()));
        put(r, "resolved_ids", resolved);
        put(r, "unresolved_ids", unresolved);
        put(r, "infra_failure_ids", infra);
        ObjectNode why = r.putObject("failure_reasons");
        reasons.forEach(why::put);
        put(r, "error_ids", errors);
        r.put("schema_version", 2);
        return r;
    }

    private static void put(ObjectNode r, String field, Collection<String> ids) {
        var a = r.putArray(field);
        ids.forEach(a::add);
    }
}
