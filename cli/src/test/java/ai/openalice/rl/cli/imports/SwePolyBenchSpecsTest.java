package ai.openalice.rl.cli.imports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.task.TaskParser;
import ai.openalice.rl.harness.reports.PolyBenchLogParsers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * SWE-PolyBench's table against its harness's constants (release 9c836c5, captured by
 * {@code dev/python/polybench_reference.py} into the harness module's
 * {@code polybench-reference.json}: its package is on no registry CI reaches), and its rows as
 * {@code tasks import} turns them into tasks.
 */
class SwePolyBenchSpecsTest {
    static JsonNode reference() throws Exception {
        return DatasetFile.JSON.readTree(Path.of("../libs/harness/src/test/resources/polybench-reference.json").toFile());
    }

    @Test
    void theTableIsItsHarnesssConstants() throws Exception {
        JsonNode ref = reference();
        JsonNode table = SwePolyBench.table();
        assertEquals(21, ref.get("repo_to_parser").size());
        assertEquals(ref.get("repo_to_parser"), table.get("repos"), "repository → parser class, all 21");
        assertEquals(ref.get("timeouts"), table.get("timeouts"), "Java 1800 s, the others 1200 s");
        for (var e : table.get("repos").properties()) {
            assertNotNull(PolyBenchLogParsers.forClass(e.getValue().asText()), e.getKey() + "'s parser " + e.getValue() + " has an alice-rl name");
        }
    }

    static ObjectNode row(String repo, String language, String command) {
        ObjectNode row = DatasetFile.JSON.createObjectNode().put("instance_id", repo.replace("/", "__") + "-1").put("repo", repo)
                .put("base_commit", "0123456789abcdef0123456789abcdef01234567").put("problem_statement", "It breaks.").put("patch", "")
                .put("test_patch", "").put("F2P", "['a.b.CTest.works']").put("P2P", "[]").put("language", language);
        return command == null ? row : row.put("test_command", command);
    }

    @Test
    void aRowRunsItsOwnCommandAsTheHarnessDoesAndIsGradedByItsRule() throws Exception {
        String mvn = "mvn test -Dtest=CTest; find . -name 'TEST-*.xml' | while read -r file; do cat \"$file\"; done";
        ObjectNode task = DatasetFormat.SWE_POLYBENCH.map(row("google/gson", "Java", mvn), RepoSpecs.bundled());
        assertEquals("set -uxo pipefail\n" + mvn, task.get("test_command").asText());
        assertEquals("{\"format\":\"log\",\"parser\":\"polybench-java\"}", task.get("test_report").toString());
        assertEquals("swe-polybench", task.get("grading").asText());
        assertEquals(1800, task.get("limits").get("test_timeout_s").asInt());
        assertEquals("swe-polybench:google/gson", task.get("spec").asText());
        assertTrue(new TaskParser(Path.of("/")).parse(task.put("problem_statement", "p")) instanceof TaskParser.Result.Valid, "a valid task");

        ObjectNode ts = DatasetFormat.SWE_POLYBENCH.map(row("mui/material-ui", "TypeScript", "yarn test:unit"), RepoSpecs.bundled());
        assertEquals("polybench-ts-mocha-file", ts.get("test_report").get("parser").asText());
        assertEquals(1200, ts.get("limits").get("test_timeout_s").asInt());

        ObjectNode own = row("huggingface/transformers", "Python", "pytest -v tests/x.py");
        own.putObject("limits").put("test_timeout_s", 60);
        own.putObject("test_report").put("format", "pytest");
        ObjectNode kept = DatasetFormat.SWE_POLYBENCH.map(own, RepoSpecs.bundled());
        assertEquals(60, kept.get("limits").get("test_timeout_s").asInt(), "the row's own limit stays");
        assertEquals("pytest", kept.get("test_report").get("format").asText(), "the row's own report stays");
    }

    @Test
    void aRepositoryItsHarnessDoesNotKnowTakesTheLanguageDefault() throws Exception {
        ObjectNode task = DatasetFormat.SWE_POLYBENCH.map(row("acme/widgets", "Java", "mvn test"), RepoSpecs.bundled());
        assertEquals("mvn test", task.get("test_command").asText());
        assertEquals("languages.Java", task.get("spec").asText());
        assertTrue(!task.has("grading"), "SWE-bench's rule");
    }
}
