package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The harness on a small Python package, with unittest and pytest reports: the gold patch
 * resolves, the empty patch does not, and no attack on the tests is resolved.
 */
class PythonHarnessTest {
    static final String OPS = "def add(a, b):\n    return a - b\n\n\ndef clamp(value, low, high):\n    return max(low, min(value, high))\n";
    static final String OPS_FIXED = OPS.replace("return a - b", "return a + b");
    static final String TEST_OPS = "import unittest\n\nfrom calc.ops import clamp\n\n\nclass ClampTest(unittest.TestCase):\n"
            + "    def test_inside(self):\n        self.assertEqual(clamp(5, 0, 10), 5)\n\n"
            + "    def test_below(self):\n        self.assertEqual(clamp(-3, 0, 10), 0)\n";
    static final String TEST_ADD = "import unittest\n\nfrom calc.ops import add\n\n\nclass AddTest(unittest.TestCase):\n"
            + "    def test_add_positive(self):\n        self.assertEqual(add(2, 3), 5)\n";

    static LocalSandboxProvider provider;
    static Harness harness;
    static FixtureRepo repo;
    static String testPatch;

    @BeforeAll
    static void setUp() throws Exception {
        provider = FixtureRepo.sandboxes("harness");
        harness = new Harness(provider, VerifierOptions.defaults());
        repo = FixtureRepo.create(Files.createTempDirectory("py-fixture"), Map.of(
                "calc/__init__.py", "", "calc/ops.py", OPS, "tests/__init__.py", "", "tests/test_ops.py", TEST_OPS));
        testPatch = repo.patch(Map.of("tests/test_add.py", TEST_ADD));
    }

    @AfterAll
    static void tearDown() {
        provider.close();
    }

    static Task task(String format) throws Exception {
        boolean pytest = format.equals("pytest");
        var node = repo.taskFields("fixture__calc-" + format, "add(2, 3) returns -1");
        node.put("test_patch", testPatch);
        node.put("test_command", pytest ? "python3 -m pytest -rA -p no:cacheprovider" : "python3 -m unittest -v");
        node.put("test_report", Map.of("format", format));
        node.put("FAIL_TO_PASS", pytest ? List.of("tests/test_add.py::AddTest::test_add_positive")
                : List.of("test_add_positive (tests.test_add.AddTest)"));
        node.put("PASS_TO_PASS", pytest ? List.of("tests/test_ops.py::ClampTest::test_inside", "tests/test_ops.py::ClampTest::test_below")
                : List.of("test_inside (tests.test_ops.ClampTest)", "test_below (tests.test_ops.ClampTest)"));
        node.put("limits", Map.of("test_timeout_s", 60));
        return FixtureRepo.parse(node);
    }

    private static Verdict verify(String format, Map<String, String> changes) throws Exception {
        return harness.verify(task(format), changes == null ? "" : repo.patch(changes));
    }

    @Test
    void goldResolvesAndEmptyDoesNotWithUnittest() throws Exception {
        Verdict gold = verify("unittest", Map.of("calc/ops.py", OPS_FIXED));
        assertEquals(VerificationStatus.RESOLVED, gold.status(), gold.toString());
        assertEquals(Map.of("test_add_positive (tests.test_add.AddTest)", TestStatus.PASSED), gold.failToPass());
        assertEquals(TestStatus.PASSED, gold.passToPass().get("test_below (tests.test_ops.ClampTest)"));
        Verdict empty = verify("unittest", null);
        assertEquals(VerificationStatus.UNRESOLVED, empty.status());
        assertEquals(TestStatus.FAILED, empty.failToPass().get("test_add_positive (tests.test_add.AddTest)"));
        assertEquals(TestStatus.PASSED, empty.passToPass().get("test_inside (tests.test_ops.ClampTest)"));
    }

    @Test
    void goldResolvesAndEmptyDoesNotWithPytest() throws Exception {
        Verdict gold = verify("pytest", Map.of("calc/ops.py", OPS_FIXED));
        assertEquals(VerificationStatus.RESOLVED, gold.status(), gold.toString());
        Verdict empty = verify("pytest", null);
        assertEquals(VerificationStatus.UNRESOLVED, empty.status());
        assertEquals(TestStatus.FAILED, empty.failToPass().get("tests/test_add.py::AddTest::test_add_positive"));
    }

    @Test
    void editingOrWritingTheHiddenTestDoesNotCount() throws Exception {
        // The agent writes its own always-passing version of the hidden test file, and weakens a visible one.
        Verdict v = verify("unittest", Map.of(
                "tests/test_add.py", TEST_ADD.replace("self.assertEqual(add(2, 3), 5)", "pass"),
                "tests/test_ops.py", TEST_OPS.replace("clamp(-3, 0, 10), 0", "0, 0")));
        assertEquals(VerificationStatus.UNRESOLVED, v.status(), v.toString());
        assertEquals(TestStatus.FAILED, v.failToPass().get("test_add_positive (tests.test_add.AddTest)"));
    }

    @Test
    void deletingTestsDoesNotCountButDoesNotHideARealFix() throws Exception {
        var changes = new HashMap<String, String>();
        changes.put("tests/test_ops.py", null);
        Verdict noFix = verify("unittest", changes);
        assertEquals(VerificationStatus.UNRESOLVED, noFix.status());
        assertEquals(TestStatus.PASSED, noFix.passToPass().get("test_inside (tests.test_ops.ClampTest)"), "the deleted file was restored");
        changes.put("calc/ops.py", OPS_FIXED);
        assertEquals(VerificationStatus.RESOLVED, verify("unittest", changes).status());
    }

    @Test
    void breakingCollectionMakesTheTestsMissing() throws Exception {
        Verdict v = verify("unittest", Map.of("calc/__init__.py", "def broken(:\n"));
        assertEquals(VerificationStatus.UNRESOLVED, v.status());
        assertEquals(TestStatus.MISSING, v.failToPass().get("test_add_positive (tests.test_add.AddTest)"));
        assertEquals(TestStatus.MISSING, v.passToPass().get("test_inside (tests.test_ops.ClampTest)"));
        Verdict p = verify("pytest", Map.of("calc/__init__.py", "def broken(:\n"));
        assertEquals(VerificationStatus.UNRESOLVED, p.status());
        assertFalse(p.failToPass().containsValue(TestStatus.PASSED));
    }

    @Test
    void exitingZeroEarlyRunsNoTest() throws Exception {
        Verdict v = verify("unittest", Map.of("calc/__init__.py", "import os\nos._exit(0)\n", "calc/ops.py", OPS));
        assertEquals(VerificationStatus.UNRESOLVED, v.status(), v.toString());
        assertTrue(v.failToPass().values().stream().allMatch(s -> s == TestStatus.MISSING));
    }

    @Test
    void aConftestThatMarksEverythingPassedIsRemoved() throws Exception {
        String conftest = "import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
                + "    outcome = yield\n    rep = outcome.get_result()\n    rep.outcome = 'passed'\n";
        Verdict v = verify("pytest", Map.of("conftest.py", conftest, "tests/conftest.py", conftest));
        assertEquals(VerificationStatus.UNRESOLVED, v.status(), v.toString());
        assertEquals(TestStatus.FAILED, v.failToPass().get("tests/test_add.py::AddTest::test_add_positive"));
    }

    @Test
    void aPatchThatDoesNotApplyIsPatchFailed() throws Exception {
        String bad = "diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1,2 +1,2 @@\n"
                + " def nothing_like_this(a, b):\n-    return 42\n+    return 43\n";
        Verdict v = harness.verify(task("unittest"), bad);
        assertEquals(VerificationStatus.PATCH_FAILED, v.status());
        assertTrue(v.reason().contains("git apply, git apply --3way and patch --fuzz=5 all failed"), v.reason());
        assertFalse(v.resolved());
    }

    @Test
    void aTimeoutIsTimedOutNotResolved() throws Exception {
        var slow = new HashMap<String, String>();
        slow.put("calc/ops.py", OPS_FIXED + "\nimport time\ntime.sleep(30)\n");
        ObjectNode node = task("unittest").raw();
        node.putObject("limits").put("test_timeout_s", 2);
        Task t = FixtureRepo.parse(node);
        Verdict v = harness.verify(t, repo.patch(slow));
        assertEquals(VerificationStatus.TIMED_OUT, v.status());
        assertFalse(v.resolved());
    }

    /** A test command that fails before any test runs is the environment's failure, said so — not a patch whose tests failed. */
    @Test
    void aBrokenEnvironmentIsNamedNotMistakenForABadPatch() throws Exception {
        var fields = repo.taskFields("fixture__calc-env", "add(2, 3) returns -1");
        fields.putAll(Map.of("test_patch", testPatch, "test_command", "python3 -c 'import calc.no_such_module' && python3 -m unittest -v",
                "test_report", Map.of("format", "unittest"), "FAIL_TO_PASS", List.of("test_add_positive (tests.test_add.AddTest)"),
                "limits", Map.of("test_timeout_s", 60)));
        var broken = FixtureRepo.parse(fields);
        Verdict v = harness.verify(broken, repo.patch(Map.of("calc/ops.py", OPS_FIXED)));
        assertEquals(VerificationStatus.UNRESOLVED, v.status());
        assertEquals(Verdict.Cause.ENVIRONMENT, v.cause());
        assertEquals(1, v.exitCode());
        assertTrue(v.reason().contains("before any test reported") && v.reason().contains("ModuleNotFoundError"), v.reason());
        assertTrue(v.log().contains("No module named 'calc.no_such_module'"), v.log());

        Verdict failing = verify("unittest", null); // the empty patch: the tests ran and failed — the patch's fault
        assertEquals(VerificationStatus.UNRESOLVED, failing.status());
        assertEquals(null, failing.cause());
        assertEquals(1, failing.exitCode());
    }

    /** A task that names its JDK gets it in the sandbox (the host's nearest newer one when it lacks that version), or a clear refusal. */
    @Test
    void theTasksToolchainNotTheHosts() throws Exception {
        var host = Toolchains.scan(VerifierOptions.HOST_JVMS);
        assumeFalse(host.jdks().isEmpty(), "this host has no JDK under /usr/lib/jvm");
        int lowest = host.jdks().getFirst().major();
        var fields = repo.taskFields("fixture__calc-jdk", "add(2, 3) returns -1");
        fields.putAll(Map.of("test_patch", testPatch, "test_command", "echo \"JAVA_HOME=$JAVA_HOME\"; python3 -m unittest -v",
                "test_report", Map.of("format", "unittest"), "FAIL_TO_PASS", List.of("test_add_positive (tests.test_add.AddTest)"),
                "limits", Map.of("test_timeout_s", 60), "toolchain", Map.of("java", String.valueOf(lowest))));
        var task = FixtureRepo.parse(fields);
        Verdict v = harness.verify(task, repo.patch(Map.of("calc/ops.py", OPS_FIXED)));
        assertEquals(VerificationStatus.RESOLVED, v.status(), v.reason());
        Path home = host.java(lowest).orElseThrow().jdk().home();
        assertTrue(v.log().contains("JAVA_HOME=" + home), v.log());
        assertEquals("java " + lowest + " at " + home, v.toolchain());

        fields.put("toolchain", Map.of("java", "99"));
        Verdict none = harness.verify(FixtureRepo.parse(fields), "");
        assertEquals(VerificationStatus.INFRA_ERROR, none.status(), "never a reward");
        assertEquals(Verdict.Cause.ENVIRONMENT, none.cause());
        assertTrue(none.reason().startsWith("the task needs java 99; this host has [java " + lowest), none.reason());
    }
}
