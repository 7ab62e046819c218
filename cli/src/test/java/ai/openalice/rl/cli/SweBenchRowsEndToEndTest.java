package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SWE-bench rows through the command line, end to end, on a repository this project writes itself
 * (real upstream repositories are checked by {@code bench/run swebench-verified} from mirrors made at
 * run time, never in CI): a small Python package at psf/requests' place in a mirrors folder, its
 * rows in SWE-bench's schema at version 1.1, so that {@code tasks import} takes SWE-bench's spec of
 * requests 1.1 — Python 3.9, pytest, {@code pip install .}, {@code pytest -rA} on the test patch's
 * files, the pytest_options parser —, the environment is built from PyPI and the tests run offline in
 * local sandboxes. {@code eval --predictions} reports the gold patch resolved and the empty one in
 * {@code empty_patch_ids}, as SWE-bench's harness does; the test patch alone fails its test.
 */
class SweBenchRowsEndToEndTest {
    static final ObjectMapper M = new ObjectMapper();
    /** Sandbox users must reach everything here: not under a 0700 home or a 0700 clone. */
    static final Path HOME = Path.of("/tmp", "alice-rl-swebench-rows");
    /** Kept between runs: PyPI is reached once per environment, later runs reuse them. */
    static final Path ENVS = Path.of("/tmp", "alice-rl-swebench-rows-envs");
    static final String ID = "psf__requests-9001";
    static final String SETUP = "from setuptools import setup\n\nsetup(name='requests', version='1.1.0', py_modules=['requests'])\n";
    static final String MODULE = "def content_length(body):\n    return len(body)\n";
    static final String FIXED = "def content_length(body):\n    return None if body is None else len(body)\n";
    static final String TESTS = "import unittest\n\nimport requests\n\n\nclass RequestsTestCase(unittest.TestCase):\n    def test_length(self):\n"
            + "        assert requests.content_length(b'abc') == 3\n\n    def test_no_content_length(self):\n"
            + "        assert requests.content_length(None) is None\n";

    static Path tasks;

    @BeforeAll
    static void prepare() throws Exception {
        run(HOME.getParent(), "rm", "-rf", HOME.toString());
        Path work = HOME.resolve("work");
        Files.createDirectories(work);
        Files.writeString(work.resolve("setup.py"), SETUP);
        Files.writeString(work.resolve("requests.py"), MODULE);
        Files.writeString(work.resolve("test_requests.py"), TESTS.substring(0, TESTS.indexOf("\n    def test_no_content_length")) + "\n");
        run(work, "git", "init", "-q");
        run(work, "git", "add", "-A");
        run(work, "git", "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "base");
        String base = git(work, "rev-parse", "HEAD");
        String patch = diff(work, "requests.py", FIXED);
        String testPatch = diff(work, "test_requests.py", TESTS);
        run(HOME, "git", "clone", "-q", "--bare", work.toString(), HOME.resolve("mirrors/psf__requests").toString());
        ObjectNode row = M.createObjectNode().put("instance_id", ID).put("repo", "psf/requests").put("base_commit", base).put("version", "1.1")
                .put("environment_setup_commit", base).put("problem_statement", "content_length(None) raises").put("patch", patch)
                .put("test_patch", testPatch).put("FAIL_TO_PASS", "[\"test_requests.py::RequestsTestCase::test_no_content_length\"]")
                .put("PASS_TO_PASS", "[\"test_requests.py::RequestsTestCase::test_length\"]").put("created_at", "2013-01-01T00:00:00Z");
        Files.writeString(HOME.resolve("rows.jsonl"), M.writeValueAsString(row) + "\n");
        Files.writeString(HOME.resolve("gold.jsonl"), M.writeValueAsString(Map.of("instance_id", ID, "model_name_or_path", "gold", "model_patch", patch)) + "\n");
        Files.writeString(HOME.resolve("empty.jsonl"), M.writeValueAsString(Map.of("instance_id", ID, "model_name_or_path", "empty", "model_patch", "")) + "\n");
        Files.createDirectories(ENVS);
        run(HOME, "chmod", "-R", "a+rX", HOME.toString(), ENVS.toString());
        tasks = HOME.resolve("tasks.jsonl");
        var r = cli("tasks", "import", "--from", "swe-bench", HOME.resolve("rows.jsonl").toString(), "--out", tasks.toString());
        assertEquals(0, r.exit(), r.out());
    }

    @Test
    void theRowTakesSweBenchsSpec() throws Exception {
        JsonNode task = M.readTree(Files.readAllLines(tasks).getFirst());
        assertEquals("swebench:psf/requests@1.1", task.get("spec").asText());
        assertEquals("{\"python\":{\"version\":\"3.9\",\"packages\":\"pytest\",\"install\":\"python -m pip install .\",\"packages_as_of\":\"2025-01-05\"},\"unroutable\":[\"10.255.255.0/24\"],\"stand_ins\":[\"httpbin\"]}", task.get("toolchain").toString());
    }

    @Test
    void goldResolvesAndTheEmptyPatchIsReportedEmptyAsSweBenchReportsThem() throws Exception {
        JsonNode gold = eval("gold.jsonl");
        assertEquals(new TreeSet<>(List.of(ID)), ids(gold, "resolved_ids"), gold.toPrettyString());
        assertEquals(0, gold.get("error_instances").asInt(), gold.toPrettyString());
        JsonNode empty = eval("empty.jsonl");
        assertEquals(new TreeSet<>(List.of(ID)), ids(empty, "empty_patch_ids"), empty.toPrettyString());
        assertEquals(new TreeSet<>(), ids(empty, "resolved_ids"));
    }

    @Test
    void theTestPatchAloneFailsTheFailToPassTest() throws Exception {
        var r = cli("verify", "--task", tasks.toString(), "--instance", ID, "--empty", "--mirrors", HOME.resolve("mirrors").toString(),
                "--python-envs", ENVS.toString(), "--sandbox-root", HOME.resolve("sandboxes").toString());
        JsonNode v = M.readTree(r.out());
        assertEquals("unresolved", v.get("status").asText(), v.toPrettyString());
        assertEquals("failed", v.get("fail_to_pass").get("test_requests.py::RequestsTestCase::test_no_content_length").asText(), v.toString());
        assertEquals("passed", v.get("pass_to_pass").get("test_requests.py::RequestsTestCase::test_length").asText(), v.toString());
        assertTrue(v.get("toolchain").asText().startsWith("python 3.9."), v.toString());
    }

    private static JsonNode eval(String predictions) throws Exception {
        Path report = HOME.resolve(predictions + ".report.json");
        var r = cli("eval", "--tasks", tasks.toString(), "--predictions", HOME.resolve(predictions).toString(), "--report", report.toString(),
                "--mirrors", HOME.resolve("mirrors").toString(), "--python-envs", ENVS.toString(), "--sandbox-root", HOME.resolve("sandboxes").toString());
        assertEquals(0, r.exit(), r.out());
        return M.readTree(report.toFile());
    }

    private static TreeSet<String> ids(JsonNode report, String field) {
        var out = new TreeSet<String>();
        report.get(field).forEach(n -> out.add(n.asText()));
        return out;
    }

    /** The diff of {@code file} changed to {@code content}, against the base; the work tree is left at the base. */
    private static String diff(Path work, String file, String content) throws Exception {
        Path f = work.resolve(file);
        String before = Files.readString(f);
        Files.writeString(f, content);
        String d = git(work, "diff") + "\n";
        Files.writeString(f, before);
        return d;
    }

    private static String git(Path dir, String... args) throws Exception {
        var cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        return run(dir, cmd.toArray(String[]::new)).strip();
    }

    private static RealInstancesTest.Run cli(String... args) {
        return RealInstancesTest.cli(args);
    }

    private static String run(Path dir, String... command) throws Exception {
        var pb = new ProcessBuilder(new ArrayList<>(List.of(command))).directory(dir.toFile()).redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), "timed out: " + List.of(command));
        assertEquals(0, p.exitValue(), List.of(command) + " failed:\n" + out);
        return out;
    }
}
