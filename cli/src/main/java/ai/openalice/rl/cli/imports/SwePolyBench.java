package ai.openalice.rl.cli.imports;

import ai.openalice.rl.harness.reports.PolyBenchLogParsers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * SWE-PolyBench's harness as its rows need it ({@code swepolybench-specs.json}, its constants): a
 * row carries its own {@code test_command}, which the harness runs as a script under
 * {@code set -uxo pipefail} in the instance's image; the repository names the log parser (21
 * repositories, 10 parsers); Java's tests get 1800 s, the others 1200 s; and an instance is resolved
 * when every F2P test passed and no P2P test failed ({@code "grading": "swe-polybench"}). A row of a
 * repository the table does not know, or without a command, takes the language default instead.
 */
final class SwePolyBench {
    private static final JsonNode TABLE = load();

    private SwePolyBench() {}

    /** The table as bundled. */
    static JsonNode table() {
        return TABLE;
    }

    /**
     * Gives {@code task} SWE-PolyBench's command, report, grading and test timeout where the row
     * leaves them out; nothing when its repository is not in the table or it has no command.
     */
    static void apply(ObjectNode row, ObjectNode task) {
        String repo = row.path("repo").asText("");
        String parserClass = TABLE.path("repos").path(repo).asText(null);
        String command = row.path("test_command").asText("");
        if (parserClass == null || command.isBlank()) {
            return;
        }
        var header = new StringBuilder();
        TABLE.path("script_header").forEach(l -> {
            if (!l.asText().startsWith("#!")) { // the interpreter line: the sandbox's shell is bash already
                header.append(l.asText()).append('\n');
            }
        });
        task.put("test_command", header + command);
        if (!task.has("test_report")) {
            task.putObject("test_report").put("format", "log").put("parser", PolyBenchLogParsers.forClass(parserClass));
        }
        if (!task.has("grading")) {
            task.put("grading", "swe-polybench");
        }
        ObjectNode limits = task.has("limits") && task.get("limits").isObject() ? (ObjectNode) task.get("limits") : task.putObject("limits");
        if (!limits.has("test_timeout_s")) {
            boolean java = row.path("language").asText("").equalsIgnoreCase("java");
            limits.put("test_timeout_s", TABLE.path("timeouts").path(java ? "java" : "default").asInt());
        }
        task.put("spec", "swe-polybench:" + repo);
    }

    private static JsonNode load() {
        try (InputStream in = SwePolyBench.class.getResourceAsStream("/swepolybench-specs.json")) {
            return DatasetFile.JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
