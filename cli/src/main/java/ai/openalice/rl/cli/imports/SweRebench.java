package ai.openalice.rl.cli.imports;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * SWE-rebench's rows carry their own test set-up in {@code install_config} (an object, or a
 * string holding one): {@code test_cmd}, run as it is at the repository root of the instance's
 * image, and {@code log_parser}, the name of the function that reads its output. The names map to
 * alice-rl's report formats where the parser reads the same lines (checked against SWE-rebench's
 * {@code lib/agent/log_parsers.py}); a row naming any other parser is reported, not guessed at.
 */
final class SweRebench {
    /** SWE-rebench's parser names and the alice-rl report that reads the same output. */
    static final Map<String, String> PARSERS = new TreeMap<>(Map.of(
            "parse_log_pytest", "{\"format\":\"pytest\"}",
            "parse_log_pytest_v2", "{\"format\":\"pytest\"}",
            "parse_log_cargo", "{\"format\":\"log\",\"parser\":\"cargo\"}",
            "parse_log_jest", "{\"format\":\"log\",\"parser\":\"jest\"}",
            "parse_log_maven", "{\"format\":\"log\",\"parser\":\"maven\"}"));

    private SweRebench() {}

    /** Sets {@code test_command} and {@code test_report} of {@code task} from the row's install_config, when it has one. */
    static void fromInstallConfig(ObjectNode row, ObjectNode task) throws DatasetFormat.Unmappable {
        JsonNode config = row.get("install_config");
        if (config == null || config.isNull()) {
            return;
        }
        if (config.isTextual()) {
            try {
                config = DatasetFile.JSON.readTree(config.asText());
            } catch (IOException e) {
                throw new DatasetFormat.Unmappable("install_config", "not JSON: " + e.getMessage().lines().findFirst().orElse(""));
            }
        }
        JsonNode cmd = config.get("test_cmd");
        JsonNode parser = config.get("log_parser");
        if (cmd == null || !cmd.isTextual() || cmd.asText().isBlank()) {
            throw new DatasetFormat.Unmappable("install_config.test_cmd", "required: the command that runs the instance's tests");
        }
        String report = parser == null ? null : PARSERS.get(parser.asText());
        if (report == null) {
            throw new DatasetFormat.Unmappable("install_config.log_parser", "'" + (parser == null ? "" : parser.asText())
                    + "' has no alice-rl counterpart (mapped: " + String.join(", ", PARSERS.keySet()) + "); give the row a test_report");
        }
        if (!task.hasNonNull("test_command")) {
            task.put("test_command", cmd.asText());
        }
        if (!task.has("test_report")) {
            try {
                task.set("test_report", DatasetFile.JSON.readTree(report));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
