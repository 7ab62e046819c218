package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SWE-bench Verified instances of three Python repositories — psf/requests 1142 (Python 3.9),
 * pallets/flask 5014 (3.11, the repository's requirements file), pytest-dev/pytest 7490 (3.9, a
 * setuptools-scm project) — imported unchanged by {@code tasks import --from swe-bench-verified},
 * which takes their test command, parser and Python environment from SWE-bench's spec table; the
 * environments are built from PyPI on this machine and the tests run offline in local sandboxes.
 * SWE-bench's harness resolves each gold patch (that is what makes an instance valid) and reports
 * an empty patch as such: {@code eval --predictions} must write the same resolved and empty ids.
 * The data and where it comes from: examples/datasets/swe-bench-verified.
 */
class SweBenchVerifiedTest {
    static final ObjectMapper M = new ObjectMapper();
    static final Path DATA = Path.of("..", "examples", "datasets", "swe-bench-verified").toAbsolutePath().normalize();
    /** Sandbox users must reach everything here: not under a 0700 home or a 0700 clone. */
    static final Path HOME = Path.of("/tmp", "alice-rl-swebench-verified");
    /** Kept between runs: PyPI is reached once per environment, later runs reuse them. */
    static final Path ENVS = Path.of("/tmp", "alice-rl-swebench-verified-envs");
    static final List<String> IDS = List.of("pallets__flask-5014", "psf__requests-1142", "pytest-dev__pytest-7490");

    static Path tasks;

    @BeforeAll
    static void prepare() throws Exception {
        run("rm", "-rf", HOME.toString());
        Files.createDirectories(HOME.resolve("mirrors"));
        for (String line : Files.readAllLines(DATA.resolve("rows.jsonl"))) {
            JsonNode row = M.readTree(line);
            String name = row.get("repo").asText().replace("/", "__");
            Path git = HOME.resolve("mirrors").resolve(name);
            run("git", "init", "-q", "--bare", git.toString());
            Files.writeString(git.resolve("shallow"), row.get("base_commit").asText() + "\n"); // a one-commit-deep bundle
            run("git", "-C", git.toString(), "fetch", "-q", DATA.resolve(name + ".bundle").toString(), "main:main");
            run("git", "-C", git.toString(), "symbolic-ref", "HEAD", "refs/heads/main");
        }
        Files.createDirectories(ENVS);
        run("chmod", "-R", "a+rX", HOME.toString(), ENVS.toString());
        tasks = HOME.resolve("tasks.jsonl");
        var r = cli("tasks", "import", "--from", "swe-bench-verified", DATA.resolve("rows.jsonl").toString(), "--out", tasks.toString());
        assertEquals(0, r.exit(), r.out());
    }

    @Test
    void eachRowImportsWithSweBenchsSpec() throws Exception {
        for (String line : Files.readAllLines(tasks)) {
            JsonNode task = M.readTree(line);
            String repo = task.get("repo").asText();
            assertEquals("swebench:" + repo + "@" + task.get("version").asText(), task.get("spec").asText());
            assertTrue(task.get("toolchain").get("python").has("version"), task.toString());
        }
    }

    @Test
    void goldResolvesAndTheEmptyPatchIsReportedEmptyAsSweBenchReportsThem() throws Exception {
        JsonNode gold = eval("predictions-gold.jsonl");
        assertEquals(new TreeSet<>(IDS), ids(gold, "resolved_ids"), gold.toPrettyString());
        assertEquals(0, gold.get("error_instances").asInt(), gold.toPrettyString());
        JsonNode empty = eval("predictions-empty.jsonl");
        assertEquals(new TreeSet<>(IDS), ids(empty, "empty_patch_ids"), empty.toPrettyString());
        assertEquals(new TreeSet<>(), ids(empty, "resolved_ids"));
    }

    @Test
    void theTestPatchAloneFailsTheFailToPassTests() throws Exception {
        for (String id : IDS) {
            var r = cli("verify", "--task", tasks.toString(), "--instance", id, "--empty", "--mirrors", HOME.resolve("mirrors").toString(),
                    "--python-envs", ENVS.toString(), "--sandbox-root", HOME.resolve("sandboxes").toString());
            JsonNode v = M.readTree(r.out());
            assertEquals("unresolved", v.get("status").asText(), v.toPrettyString());
            v.get("fail_to_pass").elements().forEachRemaining(s -> assertEquals("failed", s.asText(), "ran and failed, not missing: " + v));
            v.get("pass_to_pass").elements().forEachRemaining(s -> assertEquals("passed", s.asText(), "the environment runs the rest: " + v));
            assertTrue(v.get("toolchain").asText().startsWith("python 3."), v.toString());
        }
    }

    private static JsonNode eval(String predictions) throws Exception {
        Path report = HOME.resolve(predictions + ".report.json");
        var r = cli("eval", "--tasks", tasks.toString(), "--predictions", DATA.resolve(predictions).toString(), "--report", report.toString(),
                "--mirrors", HOME.resolve("mirrors").toString(), "--python-envs", ENVS.toString(), "--sandbox-root", HOME.resolve("sandboxes").toString());
        assertEquals(0, r.exit(), r.out());
        return M.readTree(report.toFile());
    }

    private static TreeSet<String> ids(JsonNode report, String field) {
        var out = new TreeSet<String>();
        report.get(field).forEach(n -> out.add(n.asText()));
        return out;
    }

    private static RealInstancesTest.Run cli(String... args) {
        return RealInstancesTest.cli(args);
    }

    private static void run(String... command) throws Exception {
        var pb = new ProcessBuilder(new ArrayList<>(List.of(command))).redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), "timed out: " + List.of(command));
        assertEquals(0, p.exitValue(), List.of(command) + " failed:\n" + out);
    }
}
