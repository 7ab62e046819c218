package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Grading;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A SWE-PolyBench task end to end through the harness, in a real sandbox with pytest: its command
 * under {@code set -uxo pipefail} (the trace goes to stderr, which the parser reads first, as their
 * harness does), its PythonPyUnit parser, and its grading — a PASS_TO_PASS test that does not run
 * is kept under {@code swe-polybench} and fails the task under {@code swe-bench}.
 */
class PolyBenchGradingTest {
    static final String OPS = "def add(a, b):\n    return a - b\n";
    static final String TESTS = "from calc.ops import add\n\n\ndef test_add_positive():\n    assert add(2, 3) == 5\n\n\n"
            + "def test_add_zero():\n    assert add(0, 0) == 0\n";

    static LocalSandboxProvider provider;
    static Harness harness;
    static FixtureRepo repo;

    @BeforeAll
    static void setUp() throws Exception {
        provider = FixtureRepo.sandboxes("polybench");
        harness = new Harness(provider, VerifierOptions.defaults());
        repo = FixtureRepo.create(Files.createTempDirectory("polybench-fixture"), Map.of("calc/__init__.py", "", "calc/ops.py", OPS,
                "tests/__init__.py", "", "tests/test_add.py", TESTS));
    }

    @AfterAll
    static void tearDown() throws Exception {
        provider.close();
    }

    static Task task(String grading, String p2pNeverRun) throws Exception {
        var node = repo.taskFields("fixture__polybench", "add(2, 3) returns -1");
        node.put("test_command", "set -uxo pipefail\npython3 -m pytest -v -p no:cacheprovider tests/test_add.py");
        node.put("test_report", Map.of("format", "log", "parser", "polybench-python"));
        node.put("grading", grading);
        node.put("FAIL_TO_PASS", List.of("tests/test_add.py:None:test_add_positive"));
        node.put("PASS_TO_PASS", List.of("tests/test_add.py:None:test_add_zero", p2pNeverRun));
        node.put("limits", Map.of("test_timeout_s", 120));
        return FixtureRepo.parse(node);
    }

    @Test
    void aPassToPassTestThatDidNotRunIsKeptUnderSwePolyBenchsRule() throws Exception {
        String fix = repo.patch(Map.of("calc/ops.py", "def add(a, b):\n    return a + b\n"));
        Task polybench = task("swe-polybench", "tests/test_gone.py:None:test_removed");
        assertEquals(Grading.SWE_POLYBENCH, polybench.grading());
        Verdict v = harness.verify(polybench, fix);
        assertEquals(VerificationStatus.RESOLVED, v.status(), v.reason() + "\n" + v.log());
        assertEquals(TestStatus.PASSED, v.failToPass().get("tests/test_add.py:None:test_add_positive"));
        assertEquals(TestStatus.MISSING, v.passToPass().get("tests/test_gone.py:None:test_removed"));

        Verdict strict = harness.verify(task("swe-bench", "tests/test_gone.py:None:test_removed"), fix);
        assertEquals(VerificationStatus.UNRESOLVED, strict.status(), "SWE-bench's rule: every PASS_TO_PASS test must pass");
    }

    @Test
    void theBugStillFailsItsTest() throws Exception {
        Verdict v = harness.verify(task("swe-polybench", "tests/test_gone.py:None:test_removed"), "");
        assertEquals(VerificationStatus.UNRESOLVED, v.status());
        assertEquals(TestStatus.FAILED, v.failToPass().get("tests/test_add.py:None:test_add_positive"));
        assertEquals(TestStatus.PASSED, v.passToPass().get("tests/test_add.py:None:test_add_zero"));
    }
}
