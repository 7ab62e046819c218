package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A task's {@code toolchain.unroutable} networks swallow connections in its test run, as unroutable
 * addresses do on a real network (requests' timeout tests dial 10.255.255.1 and expect to wait),
 * while nothing else is reachable and the tests run under the sandbox's own uid; without the field
 * the same connection fails at once, as it always did in a sandbox.
 */
class UnroutableNetworkTest {
    static final String TESTS = "import os, socket, pytest\n\n\ndef dial(host):\n    s = socket.socket()\n    s.settimeout(0.5)\n"
            + "    try:\n        s.connect((host, 80))\n    finally:\n        s.close()\n\n\n"
            + "def test_swallowed():\n    with pytest.raises(socket.timeout):\n        dial('10.255.255.1')\n\n\n"
            + "def test_elsewhere_unreachable_at_once():\n    with pytest.raises(OSError) as e:\n        dial('10.0.0.1')\n"
            + "    assert not isinstance(e.value, socket.timeout)\n\n\n"
            + "def test_not_root():\n    assert os.getuid() != 0 and os.getgid() != 0\n";

    static LocalSandboxProvider provider;
    static Harness harness;
    static FixtureRepo repo;

    @BeforeAll
    static void setUp() throws Exception {
        provider = FixtureRepo.sandboxes("unroutable");
        harness = new Harness(provider, VerifierOptions.defaults());
        repo = FixtureRepo.create(Files.createTempDirectory("unroutable-fixture"), Map.of("README", "tests of a network\n"));
    }

    @AfterAll
    static void tearDown() {
        provider.close();
    }

    static Task task(boolean unroutable) throws Exception {
        var node = repo.taskFields("fixture__net-" + unroutable, "timeouts");
        node.put("test_patch", repo.patch(Map.of("test_net.py", TESTS)));
        node.put("test_command", "python3 -m pytest -rA -p no:cacheprovider test_net.py");
        node.put("test_report", Map.of("format", "log", "parser", "pytest-rA"));
        node.put("FAIL_TO_PASS", List.of("test_net.py::test_swallowed"));
        node.put("PASS_TO_PASS", List.of("test_net.py::test_elsewhere_unreachable_at_once", "test_net.py::test_not_root"));
        if (unroutable) {
            node.put("toolchain", Map.of("unroutable", List.of("10.255.255.0/24")));
        }
        return FixtureRepo.parse(node);
    }

    @Test
    void onlyTheNamedNetworksSwallowConnections() throws Exception {
        Verdict v = harness.verify(task(true), "");
        assertTrue(v.resolved(), v.reason() + "\n" + v.log());
        Verdict without = harness.verify(task(false), "");
        assertEquals(TestStatus.FAILED, without.failToPass().get("test_net.py::test_swallowed"), without.log());
        assertEquals(TestStatus.PASSED, without.passToPass().get("test_net.py::test_not_root"), without.log());
    }
}
