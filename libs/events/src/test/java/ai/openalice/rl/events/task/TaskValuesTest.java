package ai.openalice.rl.events.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.TestStatus;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every value a task carries read as written (the validation tests look at errors), and each
 * wrong kind of value named in its error as the publisher wrote it.
 */
class TaskValuesTest {
    static final ObjectMapper M = new ObjectMapper();
    static final String FULL = """
            {"instance_id": "acme__calc-7", "repo": "acme/calc", "base_commit": "abc123", "problem_statement": "add is wrong",
             "patch": "P", "test_patch": "T", "FAIL_TO_PASS": "[\\"t1\\", \\"t2\\"]", "PASS_TO_PASS": ["t3"], "version": 3.0,
             "environment_setup_commit": "def456", "hints_text": "look at ops", "created_at": "2024-01-02T03:04:05Z",
             "workspace": {"type": "mirror", "repo": "acme/calc", "commit": "abc123"}, "test_command": "pytest",
             "test_report": {"format": "junit-xml", "path": "reports/*.xml"},
             "limits": {"max_steps": 1, "max_context_tokens": 4096, "episode_timeout_s": 60, "test_timeout_s": 30}, "split": "eval"}""";

    static TaskParser.Result parse(String json) throws Exception {
        return new TaskParser(Path.of("/")).parse(M.readTree(json));
    }

    static List<String> errors(String field, Object value) throws Exception {
        var node = (ObjectNode) M.readTree(FULL);
        node.set(field, M.valueToTree(value));
        var r = parse(node.toString());
        assertTrue(r instanceof TaskParser.Result.Invalid, field + " = " + value + " was taken");
        return ((TaskParser.Result.Invalid) r).errors().stream().map(FieldError::toString).toList();
    }

    @Test
    void everyValueAsWritten() throws Exception {
        var t = ((TaskParser.Result.Valid) parse(FULL)).task();
        assertEquals("acme__calc-7", t.instanceId());
        assertEquals("acme/calc", t.repo());
        assertEquals("abc123", t.baseCommit());
        assertEquals("add is wrong", t.problemStatement());
        assertEquals("P", t.patch());
        assertEquals("T", t.testPatch());
        assertEquals(List.of("t1", "t2"), t.failToPass(), "a JSON-encoded list, as SWE-bench ships them");
        assertEquals(List.of("t3"), t.passToPass());
        assertEquals("3.0", t.version(), "a number kept as its text");
        assertEquals("def456", t.environmentSetupCommit());
        assertEquals("look at ops", t.hintsText());
        assertEquals("2024-01-02T03:04:05Z", t.createdAt());
        assertEquals(new WorkspaceSpec.Mirror("acme/calc", "abc123"), t.workspace());
        assertEquals("pytest", t.testCommand());
        assertEquals(new TestReportSpec.JunitXml("reports/*.xml"), t.testReport());
        assertEquals(new Limits(1, 4096, 60, 30), t.limits(), "1 is a positive limit");
        assertEquals(new Limits(1, 2048, 60, 30), t.limits().withMaxContextTokens(2048));
        assertEquals(Split.EVAL, t.split());
    }

    @Test
    void whatATaskLeavesOutTakesItsDefault() throws Exception {
        var t = ((TaskParser.Result.Valid) parse("""
                {"instance_id": "a__b-1", "problem_statement": "p", "FAIL_TO_PASS": ["t"], "test_command": "pytest",
                 "test_report": {"format": "pytest"}, "workspace": {"type": "dir", "path": "/tmp"}}""")).task();
        assertEquals(null, t.version(), "no version: none, not an empty one");
        assertEquals(null, t.repo());
        assertEquals(Limits.defaults(), t.limits());
        assertEquals(List.of(), t.passToPass());
        assertEquals(Split.TRAIN, t.split());
        assertEquals(Grading.SWE_BENCH, t.grading(), "SWE-bench's rule unless the task names another");
    }

    @Test
    void aGradingRuleIsNamedOrRefused() throws Exception {
        var node = (ObjectNode) M.readTree(FULL);
        node.put("grading", "swe-polybench");
        assertEquals(Grading.SWE_POLYBENCH, ((TaskParser.Result.Valid) parse(node.toString())).task().grading());
        assertEquals(List.of("grading: 'polybench' is not one of [swe-bench, swe-polybench] (invalid_value)"), errors("grading", "polybench"));
        assertEquals(List.of("grading: must be \"swe-bench\" or \"swe-polybench\", got a number (1) (wrong_type)"), errors("grading", 1));
    }

    /** The two rules, from SWE-bench's get_resolution_status and SWE-PolyBench's instance_level_scoring. */
    @Test
    void theRulesJudgeAsTheirHarnessesDo() {
        var passed = List.of(TestStatus.PASSED);
        for (TestStatus p2p : TestStatus.values()) {
            boolean kept = p2p != TestStatus.FAILED && p2p != TestStatus.ERROR;
            assertEquals(kept, Grading.SWE_POLYBENCH.resolved(passed, List.of(TestStatus.PASSED, p2p)), "polybench, P2P " + p2p);
            assertEquals(p2p == TestStatus.PASSED, Grading.SWE_BENCH.resolved(passed, List.of(TestStatus.PASSED, p2p)), "swe-bench, P2P " + p2p);
            assertEquals(p2p == TestStatus.PASSED, Grading.SWE_POLYBENCH.resolved(List.of(TestStatus.PASSED, p2p), List.of()), "polybench, F2P " + p2p);
        }
    }

    @Test
    void theOtherWrongValuesAreNamedToo() throws Exception {
        assertEquals(List.of("limits: must be an object, got a string (wrong_type)"), errors("limits", "x"));
        assertEquals(List.of("test_report.parser: required for log: one of " + TestReportSpec.Log.PARSERS + " (missing)"),
                errors("test_report", Map.of("format", "log")));
        assertEquals(List.of("test_report.parser: 'gradle' is not a log parser: one of " + TestReportSpec.Log.PARSERS + " (unknown_type)"),
                errors("test_report", Map.of("format", "log", "parser", "gradle")));
        assertEquals(List.of("workspace.repo: must be 'owner/name', got 'calc' (invalid_value)"),
                errors("workspace", Map.of("type", "mirror", "repo", "calc", "commit", "abc")));
        assertEquals(List.of("FAIL_TO_PASS: must list at least one test (invalid_value)"), errors("FAIL_TO_PASS", List.of()));
    }

    @Test
    void blankLinesAreSkippedAndCounted() throws Exception {
        var lines = new ArrayList<TaskReader.Line>();
        String one = M.readTree(FULL).toString();
        TaskReader.read(new StringReader("\n   \n" + one + "\n"), Path.of("/"), lines::add);
        assertEquals(1, lines.size(), "the blank lines are no tasks");
        assertEquals(3, ((TaskReader.Line.Valid) lines.getFirst()).number(), "but they count as lines");
    }

    @Test
    void aWrongKindOfValueIsNamedAsWritten() throws Exception {
        assertEquals(List.of("problem_statement: must be a string, got a number (5) (wrong_type)"), errors("problem_statement", 5));
        assertEquals(List.of("repo: must be a string, got an array (wrong_type)"), errors("repo", List.of()));
        assertEquals(List.of("version: must be a string or a number, got a boolean (wrong_type)"), errors("version", true));
        assertEquals(List.of("FAIL_TO_PASS: must be an array of test ids (or a JSON-encoded one), got an object (wrong_type)"),
                errors("FAIL_TO_PASS", Map.of()));
        var withNull = new ArrayList<Object>();
        withNull.add(null);
        assertEquals(List.of("PASS_TO_PASS[0]: must be a non-empty test id string, got null (wrong_type)"), errors("PASS_TO_PASS", withNull));
        assertEquals(List.of("limits.max_steps: must be >= 1, got 0 (invalid_value)"), errors("limits", Map.of("max_steps", 0)));
        assertEquals(List.of("limits.max_steps: must be an integer, got a number (1.5) (wrong_type)"),
                errors("limits", Map.of("max_steps", 1.5)));
        assertEquals(List.of("split: must be \"train\" or \"eval\", got a boolean (wrong_type)"), errors("split", false));
    }
}
