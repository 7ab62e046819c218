package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.harness.Toolchains;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real instances of two real Java repositories (FasterXML's jackson-core #1142 and
 * jackson-dataformat-xml #638, from Multi-SWE-bench's Java set) and one JavaScript repository
 * (expressjs/express #5555, from its JavaScript set) imported by
 * {@code tasks import --from multi-swe-bench} and verified offline in local sandboxes with the JDK,
 * Maven and npm cache the project provides: the gold patch resolves, the test patch alone does not,
 * and SWE-agent's published predictions for the Java instances get the verdicts published for them.
 * The rows and predictions are read from ../shared/datasets/multi-swe-bench (with where each came from
 * in its README); the repositories are upstream's, so they are never in the project's history or in
 * CI: give git mirrors of them ({@code <owner>__<name>}, e.g. made with {@code git clone --bare}) in
 * the folder {@code ALICE_MIRRORS} names, and this test runs; without it, it is skipped.
 */
class RealInstancesTest {
    static final ObjectMapper M = new ObjectMapper();
    static final Path DATA = Path.of("..", "..", "shared", "datasets", "multi-swe-bench").toAbsolutePath().normalize();
    static final String MIRRORS = System.getenv("ALICE_MIRRORS");
    /** Sandbox users must reach everything here: not under a 0700 home or a 0700 clone. */
    static final Path HOME = Path.of("/tmp", "alice-rl-real-instances");
    /** Kept between runs: Maven Central is reached once to fill it, the sandboxes then build offline. */
    static final Path M2 = Path.of("/tmp", "alice-rl-real-instances-m2");
    static final Path NPM = Path.of("/tmp", "alice-rl-real-instances-npm");
    static final Map<String, String> BASES = Map.of(
            "fasterxml__jackson-core", "f1dc3c512d211ae3e14fb59af231caebf037d510",
            "fasterxml__jackson-dataformat-xml", "ac00d648e9b424f4b6c4d7aaaa23abf50adc1b5a",
            "expressjs__express", "a1fa90fcea7d8e844e1c9938ad095d62669c3abd");

    static Path tasks;

    @BeforeAll
    static void prepare() throws Exception {
        Assumptions.assumeTrue(MIRRORS != null && Files.isDirectory(DATA) && BASES.keySet().stream().allMatch(m -> Files.isDirectory(Path.of(MIRRORS, m))),
                "real repositories: set ALICE_MIRRORS to a folder with mirrors of " + BASES.keySet() + ", and have " + DATA);
        run(List.of("rm", "-rf", HOME.toString()), Path.of("/"), Map.of());
        Files.createDirectories(HOME.resolve("mirrors"));
        for (var e : BASES.entrySet()) {
            mirror(e.getKey(), e.getValue());
        }
        String mavenHome = System.getProperty("alice.maven.home");
        assertNotNull(mavenHome, "alice.maven.home (the build's Maven) is not set; run through ./mvnw");
        run(List.of("cp", "-a", Path.of(mavenHome).toRealPath() + "/.", HOME.resolve("maven").toString()), Path.of("/"), Map.of());
        tasks = HOME.resolve("tasks.jsonl");
        var r = cli("tasks", "import", "--from", "multi-swe-bench", DATA.resolve("rows.jsonl").toString(), "--out", tasks.toString());
        assertEquals(0, r.exit, r.out);
        for (String line : Files.readAllLines(tasks)) {
            fillCaches(M.readTree(line));
        }
        run(List.of("chmod", "-R", "a+rX", HOME.toString(), M2.toString(), NPM.toString()), Path.of("/"), Map.of());
    }

    /** A bare copy of the mirror given in ALICE_MIRRORS, where sandbox users can read it. */
    private static void mirror(String name, String base) throws Exception {
        run(List.of("git", "clone", "-q", "--bare", Path.of(MIRRORS, name).toString(), HOME.resolve("mirrors").resolve(name).toString()), HOME, Map.of());
        run(List.of("git", "-C", HOME.resolve("mirrors").resolve(name).toString(), "cat-file", "-e", base + "^{commit}"), HOME, Map.of());
    }

    /** Runs the imported task's own test command once on the host, gold and test patches applied, so that its dependencies are cached. */
    private static void fillCaches(JsonNode task) throws Exception {
        Path work = HOME.resolve("prepare").resolve(task.get("instance_id").asText());
        run(List.of("git", "clone", "-q", HOME.resolve("mirrors").resolve(task.get("repo").asText().replace("/", "__")).toString(), work.toString()), HOME, Map.of());
        run(List.of("git", "checkout", "-q", task.get("base_commit").asText()), work, Map.of());
        Files.writeString(work.resolve("gold.diff"), task.get("patch").asText() + task.get("test_patch").asText());
        run(List.of("git", "apply", "gold.diff"), work, Map.of());
        var env = new HashMap<>(Map.of("PATH", HOME.resolve("maven/bin") + ":" + System.getenv("PATH"),
                "MAVEN_OPTS", "-Dmaven.repo.local=" + M2, "MAVEN_ARGS", "-B", "npm_config_cache", NPM.toString()));
        if (task.has("toolchain")) {
            env.put("JAVA_HOME", Toolchains.scan(Path.of("/usr/lib/jvm")).java(task.get("toolchain").get("java").asInt()).orElseThrow().jdk().home().toString());
        }
        run(List.of("bash", "-c", task.get("test_command").asText()), work, env);
    }

    @Test
    void goldResolvesAndTheTestPatchAloneDoesNot() throws Exception {
        for (String id : List.of("fasterxml__jackson-core-1142", "fasterxml__jackson-dataformat-xml-638", "expressjs__express-5555")) {
            JsonNode gold = verify(id, "--gold");
            assertEquals("resolved", gold.get("status").asText(), gold.toPrettyString());
            if (id.startsWith("fasterxml")) {
                assertTrue(gold.get("toolchain").asText().startsWith("java 17 at "), "Java 8 asked, the nearest newer JDK here: " + gold);
            } else {
                assertEquals(3, gold.get("pass_to_pass").size(), "the listed mocha tests, by title: " + gold);
            }
            JsonNode empty = verify(id, "--empty");
            assertEquals("unresolved", empty.get("status").asText(), empty.toPrettyString());
            assertTrue(empty.get("fail_to_pass").elements().next().asText().matches("failed|error"),
                    "the listed class ran and failed, rather than going missing: " + empty);
        }
    }

    @Test
    void publishedPredictionsGetTheirPublishedVerdicts() throws Exception {
        JsonNode published = M.readTree(DATA.resolve("published.json").toFile());
        try (var files = Files.list(DATA.resolve("predictions"))) {
            for (Path preds : files.sorted().toList()) {
                Path report = HOME.resolve(preds.getFileName() + ".report.json");
                var r = cli("eval", "--tasks", tasks.toString(), "--predictions", preds.toString(), "--report", report.toString(),
                        "--mirrors", HOME.resolve("mirrors").toString(), "--maven-repo", M2.toString(), "--maven-home", HOME.resolve("maven").toString(),
                        "--npm-cache", NPM.toString(), "--sandbox-root", HOME.resolve("sandboxes").toString());
                assertEquals(0, r.exit, r.out);
                var expected = new TreeSet<String>();
                for (String line : Files.readAllLines(preds)) {
                    JsonNode p = M.readTree(line);
                    if (published.get(p.get("instance_id").asText()).get(p.get("model_name_or_path").asText()).get("resolved").asBoolean()) {
                        expected.add(p.get("instance_id").asText());
                    }
                }
                var resolved = new TreeSet<String>();
                M.readTree(report.toFile()).get("resolved_ids").forEach(n -> resolved.add(n.asText()));
                assertEquals(expected, resolved, preds.getFileName() + ": " + r.out);
            }
        }
    }

    private static JsonNode verify(String id, String which) throws IOException {
        var r = cli("verify", "--task", tasks.toString(), "--instance", id, which, "--mirrors", HOME.resolve("mirrors").toString(),
                "--maven-repo", M2.toString(), "--maven-home", HOME.resolve("maven").toString(), "--npm-cache", NPM.toString(),
                "--sandbox-root", HOME.resolve("sandboxes").toString());
        return M.readTree(r.out);
    }

    /** An exit code and what the command printed (out, then err). */
    record Run(int exit, String out) {}

    /** Runs the command line in this JVM (SweBenchVerifiedTest too). */
    static Run cli(String... args) {
        var out = new StringWriter();
        var err = new StringWriter();
        int exit = new picocli.CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Run(exit, out + err.toString());
    }

    private static void run(List<String> command, Path dir, Map<String, String> env) throws Exception {
        var pb = new ProcessBuilder(new ArrayList<>(command)).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(15, TimeUnit.MINUTES), "timed out: " + command);
        assertEquals(0, p.exitValue(), command + " failed:\n" + out);
    }
}
