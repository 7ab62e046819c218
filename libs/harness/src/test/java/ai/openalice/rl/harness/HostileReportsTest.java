package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Reports written by the candidate's own code, end to end through the harness: the task's tests
 * run under pytest with a JUnit XML report, and the candidate's package — which does not fix the
 * bug — writes a report of its own beside the real one while the tests import it. The verdict stays
 * what the real run says (the FAIL_TO_PASS test failed: unresolved), nothing from the verifier's
 * host reaches the verdict, nothing hangs, and the verdict says what was refused.
 */
class HostileReportsTest {
    static final String OPS = "def add(a, b):\n    return a - b\n";
    static final String TEST_ADD = "import unittest\n\nfrom calc.ops import add\n\n\nclass AddTest(unittest.TestCase):\n"
            + "    def test_add_positive(self):\n        self.assertEqual(add(2, 3), 5)\n\n"
            + "    def test_add_zero(self):\n        self.assertEqual(add(0, 0), 0)\n";
    static final String F2P = "tests.test_add.AddTest#test_add_positive";
    static final String P2P = "tests.test_add.AddTest#test_add_zero";

    static LocalSandboxProvider provider;
    static Harness harness;
    static FixtureRepo repo;
    static Path secret;
    static String secretText;

    @BeforeAll
    static void setUp() throws Exception {
        provider = FixtureRepo.sandboxes("hostile");
        harness = new Harness(provider, VerifierOptions.defaults());
        repo = FixtureRepo.create(Files.createTempDirectory("hostile-fixture"), Map.of("calc/__init__.py", "", "calc/ops.py", OPS,
                "tests/__init__.py", "", "tests/test_add.py", TEST_ADD));
        // a file on the verifier's host, outside anything a sandbox sees
        secretText = "host-secret-" + UUID.randomUUID();
        secret = Files.writeString(Files.createTempDirectory(Path.of(System.getProperty("user.home")), "alice-hostile").resolve("secret.txt"),
                secretText);
    }

    @AfterAll
    static void tearDown() throws Exception {
        provider.close();
        Files.deleteIfExists(secret);
        Files.deleteIfExists(secret.getParent());
    }

    static Task task() throws Exception {
        var node = repo.taskFields("fixture__hostile", "add(2, 3) returns -1");
        node.put("test_command", "python3 -m pytest -p no:cacheprovider --junitxml=reports/TEST-pytest.xml tests");
        node.put("test_report", Map.of("format", "junit-xml", "path", "reports/TEST-*.xml"));
        node.put("FAIL_TO_PASS", List.of(F2P));
        node.put("PASS_TO_PASS", List.of(P2P));
        node.put("limits", Map.of("test_timeout_s", 120));
        return FixtureRepo.parse(node);
    }

    /**
     * The candidate's patch: calc/__init__.py writes {@code report} as reports/TEST-zz-planted.xml
     * when the tests import calc — after the real report in the glob's order, so that a merge where
     * the last report wins would take it.
     */
    static Verdict planting(String report) throws Exception {
        String init = "import os\nos.makedirs('reports', exist_ok=True)\nwith open('reports/TEST-zz-planted.xml', 'w') as f:\n    f.write("
                + new ObjectMapper().writeValueAsString(report) + ")\n";
        return harness.verify(task(), repo.patch(Map.of("calc/__init__.py", init)));
    }

    static void assertTheRealRunStands(Verdict v) {
        assertEquals(VerificationStatus.UNRESOLVED, v.status(), v.toString());
        assertEquals(TestStatus.FAILED, v.failToPass().get(F2P), "the real run's failure: " + v);
        assertEquals(TestStatus.PASSED, v.passToPass().get(P2P));
        assertFalse(String.valueOf(v.reason()).contains(secretText) || v.log().contains(secretText), "nothing of the host's file: " + v);
    }

    @Test
    void anExternalEntityNamingAHostFileIsRefused() throws Exception {
        var v = planting("<?xml version=\"1.0\"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM \"file://" + secret + "\">]>\n<testsuite><testcase classname="
                + "\"tests.test_add.AddTest\" name=\"test_add_positive\"><system-out>&x;</system-out></testcase></testsuite>\n");
        assertTheRealRunStands(v);
        assertTrue(v.reason().contains("report reports/TEST-zz-planted.xml not read") && v.reason().contains("DOCTYPE"), v.reason());
    }

    @Test
    void anEntityBombIsRefusedWithoutHangingOrFillingTheHeap() throws Exception {
        var bomb = new StringBuilder("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\">");
        bomb.append("<!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">");
        for (int i = 2; i <= 9; i++) {
            bomb.append("<!ENTITY lol").append(i).append(" \"").append(("&lol" + (i - 1) + ";").repeat(10)).append("\">");
        }
        bomb.append("]>\n<testsuite><testcase classname=\"tests.test_add.AddTest\" name=\"test_add_positive\"><system-out>&lol9;</system-out>"
                + "</testcase></testsuite>\n");
        var v = planting(bomb.toString());
        assertTheRealRunStands(v);
        assertTrue(v.reason().contains("not read"), v.reason());
    }

    @Test
    void aForgedPassingReportBesideTheRealFailingOneDoesNotPassTheTest() throws Exception {
        var v = planting("<?xml version=\"1.0\"?>\n<testsuite><testcase classname=\"tests.test_add.AddTest\" name=\"test_add_positive\"/>"
                + "<testcase classname=\"tests.test_add.AddTest\" name=\"test_add_zero\"/></testsuite>\n");
        assertTheRealRunStands(v);
        assertTrue(v.reason().contains(F2P + " reported passed and failed: kept failed") || v.reason().contains(F2P
                + " reported failed and passed: kept failed"), v.reason());
    }

    @Test
    void testsTheTaskDoesNotListAreNotCounted() throws Exception {
        var v = planting("<?xml version=\"1.0\"?>\n<testsuite><testcase classname=\"tests.test_extra.Extra\" name=\"test_claimed\"/>"
                + "</testsuite>\n");
        assertTheRealRunStands(v);
        assertEquals(List.of(F2P), List.copyOf(v.failToPass().keySet()), "only the task's tests are judged");
        assertEquals(List.of(P2P), List.copyOf(v.passToPass().keySet()));
    }
}
