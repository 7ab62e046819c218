package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import ai.openalice.rl.sandbox.HostCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A task's {@code toolchain.unroutable} networks swallow connections in its test run, as unroutable
 * addresses do on a real network (requests' timeout tests dial 10.255.255.1 and expect to wait),
 * while nothing else is reachable and the tests run under the sandbox's own uid; without the field
 * the same connection fails at once, as it always did in a sandbox. Its {@code stand_ins} serve on
 * the sandbox's loopback: httpbin answers at httpbin.org over HTTP and over HTTPS with a certificate
 * the tests trust through {@code REQUESTS_CA_BUNDLE} and through the system's bundle, as a client
 * that names no bundle reads it.
 */
class SandboxNetworkTest {
    static final String TESTS = "import os, socket, pytest\n\n\ndef dial(host):\n    s = socket.socket()\n    s.settimeout(0.5)\n"
            + "    try:\n        s.connect((host, 80))\n    finally:\n        s.close()\n\n\n"
            + "def test_swallowed():\n    with pytest.raises(socket.timeout):\n        dial('10.255.255.1')\n\n\n"
            + "def test_elsewhere_unreachable_at_once():\n    with pytest.raises(OSError) as e:\n        dial('10.0.0.1')\n"
            + "    assert not isinstance(e.value, socket.timeout)\n\n\n"
            + "def test_not_root():\n    assert os.getuid() != 0 and os.getgid() != 0\n";
    static final String HTTPBIN = "import json, os, ssl, urllib.request\n\n\ndef test_httpbin_over_http_and_https():\n"
            + "    tls = ssl.create_default_context(cafile=os.environ['REQUESTS_CA_BUNDLE'])\n"
            + "    for url, context in [('http://httpbin.org/get?a=1', None), ('https://httpbin.org/get?a=1', tls),\n"
            + "                         ('https://httpbin.org/get?a=1', ssl.create_default_context())]:\n"
            + "        body = json.load(urllib.request.urlopen(url, context=context, timeout=10))\n"
            + "        assert body['args'] == {'a': '1'}, body\n";

    static LocalSandboxProvider provider;
    static Harness harness;
    static FixtureRepo repo;
    static Path envs;

    @BeforeAll
    static void setUp() throws Exception {
        provider = FixtureRepo.sandboxes("unroutable");
        envs = Files.createTempDirectory(Path.of("/tmp"), "alice-rl-stand-ins");
        HostCommand.check(List.of("chmod", "755", envs.toString()), null, Duration.ofSeconds(10));
        harness = new Harness(provider, VerifierOptions.defaults().withPython(new PythonEnvironments(envs, PythonEnvironments.defaultRoots())));
        repo = FixtureRepo.create(Files.createTempDirectory("network-fixture"), Map.of("README", "tests of a network\n"));
    }

    @AfterAll
    static void tearDown() throws Exception {
        provider.close();
        HostCommand.run(List.of("rm", "-rf", envs.toString()), null, Duration.ofMinutes(2));
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

    @Test
    void httpbinAnswersAtItsNameOnTheSandboxsLoopback() throws Exception {
        var node = repo.taskFields("fixture__httpbin", "calls httpbin.org");
        node.put("test_patch", repo.patch(Map.of("test_web.py", HTTPBIN, "test_net.py", TESTS)));
        node.put("test_command", "python3 -m pytest -rA -p no:cacheprovider test_web.py test_net.py");
        node.put("test_report", Map.of("format", "log", "parser", "pytest-rA"));
        node.put("FAIL_TO_PASS", List.of("test_web.py::test_httpbin_over_http_and_https"));
        node.put("PASS_TO_PASS", List.of("test_net.py::test_elsewhere_unreachable_at_once", "test_net.py::test_not_root"));
        node.put("toolchain", Map.of("stand_ins", List.of("httpbin")));
        Verdict v = harness.verify(FixtureRepo.parse(node), "");
        assertTrue(v.resolved(), v.reason() + "\n" + v.log());
    }
}
