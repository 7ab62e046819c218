package ai.openalice.rl.cli.imports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SWE-bench Verified as it ships: every row imports from SWE-bench's own build of the file (17
 * columns, with its eval_script and log_parser) and from the 13 columns a user downloads, and each
 * instance gets the same task from either — command, parser, Python version and packages. A row's
 * eval_script gives its test and re-install commands and its parser; the spec table still gives
 * the environment. The dataset is read from {@code ../shared/datasets/swe-bench-verified} (never
 * copied into the repository); where it is absent this test says so and is skipped.
 */
class SweBenchVerifiedImportTest {
    static final ObjectMapper M = new ObjectMapper();
    static final Path DATASET = Path.of("..", "..", "shared", "datasets", "swe-bench-verified", "test.parquet").toAbsolutePath().normalize();
    static final List<String> FIELDS = List.of("test_command", "test_report", "toolchain");

    @Test
    void everyRowGivesTheSameTaskFromEitherForm() throws Exception {
        assumeTrue(Files.isRegularFile(DATASET), "SWE-bench Verified is not at " + DATASET + " (../shared/datasets beside the checkout)");
        RepoSpecs specs = RepoSpecs.bundled();
        var rows = DatasetFile.read(DATASET);
        assertEquals(500, rows.size(), "SWE-bench Verified's 500 rows");
        var differ = new ArrayList<String>();
        int python = 0;
        for (DatasetFile.Row row : rows) {
            assertTrue(row.json().hasNonNull("eval_script"), "SWE-bench's build of the file carries each row's eval_script");
            ObjectNode built = DatasetFormat.SWE_BENCH.map(row.json(), specs);
            ObjectNode columns = row.json().deepCopy();
            columns.remove(List.of("log_parser", "eval_type", "eval_script", "image"));
            ObjectNode published = DatasetFormat.SWE_BENCH.map(columns, specs);
            if (!FIELDS.stream().allMatch(f -> built.path(f).equals(published.path(f)))) {
                differ.add(built.path("instance_id").asText());
            }
            assertTrue(built.path("spec").asText().startsWith("row:eval_script+swebench:"), built.path("spec").asText());
            if (built.path("toolchain").has("python")) {
                python++;
            }
        }
        assertEquals(List.of(), differ, "instances whose two forms give different tasks");
        assertEquals(500, python, "every Verified repository is a Python one: each task names its environment");
    }

    /**
     * A row in SWE-bench 5's shape, written here by hand as its harness writes eval scripts: its
     * re-install and test lines and its parser are taken, the environment is the table's; the same
     * row without the script gets the same task.
     */
    @Test
    void anEvalScriptGivesCommandsAndTheTableTheEnvironment() throws Exception {
        String testPatch = "diff --git a/test_requests.py b/test_requests.py\n--- a/test_requests.py\n+++ b/test_requests.py\n@@ -1 +1 @@\n-a\n+b\n";
        String base = "0123456789abcdef0123456789abcdef01234567";
        ObjectNode row = M.createObjectNode().put("instance_id", "psf__requests-1142").put("repo", "psf/requests").put("base_commit", base)
                .put("problem_statement", "p").put("patch", "").put("test_patch", testPatch).put("FAIL_TO_PASS", "[\"test_requests.py::A::b\"]")
                .put("PASS_TO_PASS", "[]").put("version", "1.1").put("environment_setup_commit", base);
        ObjectNode five = row.deepCopy().put("log_parser", "parse_log_pytest_options").put("eval_script", String.join("\n", "#!/bin/bash",
                "set -uxo pipefail", "source /opt/miniconda3/bin/activate", "conda activate testbed", "cd /testbed",
                "git config --global --add safe.directory /testbed", "cd /testbed", "git status", "git show",
                "git -c core.fileMode=false diff " + base, "source /opt/miniconda3/bin/activate", "conda activate testbed",
                "python -m pip install .", "git checkout " + base + " test_requests.py", "git apply -v - <<'EOF_1'", testPatch + "EOF_1",
                ": '>>>>> Start Test Output'", "pytest -rA test_requests.py", ": '>>>>> End Test Output'", "git checkout " + base + " test_requests.py", ""));
        RepoSpecs specs = RepoSpecs.bundled();
        ObjectNode fromScript = DatasetFormat.SWE_BENCH.map(five, specs);
        ObjectNode fromTable = DatasetFormat.SWE_BENCH.map(row, specs);
        String expected = "set -uxo pipefail\n[ ! -f /opt/miniconda3/bin/activate ] || { source /opt/miniconda3/bin/activate && conda activate testbed; }"
                + "\npython -m pip install .\npytest -rA test_requests.py";
        assertEquals(expected, fromScript.get("test_command").asText());
        assertEquals(expected, fromTable.get("test_command").asText());
        JsonNode toolchain = fromScript.get("toolchain");
        assertEquals("{\"python\":{\"version\":\"3.9\",\"packages\":\"pytest\",\"install\":\"python -m pip install .\",\"packages_as_of\":\"2025-01-05\"},\"unroutable\":[\"10.255.255.0/24\"],\"stand_ins\":[\"httpbin\"]}", toolchain.toString(),
                "SWE-bench's environment of requests 1.1, which the eval script does not name");
        assertEquals(toolchain, fromTable.get("toolchain"));
        assertEquals("pytest-options", fromScript.get("test_report").get("parser").asText());
        assertEquals("row:eval_script+swebench:psf/requests@1.1", fromScript.get("spec").asText());
    }
}
