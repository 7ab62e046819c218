package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskParser;
import ai.openalice.rl.sandbox.HostCommand;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import ai.openalice.rl.sandbox.local.Templates;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The harness on a small Maven/JUnit 5 project built offline in the sandbox (no network): the
 * dependencies come from a local repository mounted read-only. Gold resolves, empty does not,
 * and the attacks on the tests or the test runner are not resolved.
 */
class MavenHarnessTest {
    static final String POM = """
            <project xmlns="http://maven.apache.org/POM/4.0.0">
              <modelVersion>4.0.0</modelVersion>
              <groupId>fixture</groupId><artifactId>calc</artifactId><version>1</version>
              <properties>
                <maven.compiler.release>21</maven.compiler.release>
                <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
              </properties>
              <dependencies>
                <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>6.0.3</version><scope>test</scope></dependency>
              </dependencies>
              <build><plugins>
                <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
                <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.14.1</version></plugin>
                <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.5.4</version></plugin>
              </plugins></build>
            </project>
            """;
    static final String CALC = "package calc;\n\npublic final class Calc {\n    public static int add(int a, int b) {\n        return a - b;\n    }\n\n"
            + "    public static int sub(int a, int b) {\n        return a - b;\n    }\n}\n";
    static final String CALC_FIXED = CALC.replaceFirst("return a - b;", "return a + b;");
    static final String TEST = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\n"
            + "class CalcTest {\n    @Test\n    void subtracts() {\n        assertEquals(1, Calc.sub(3, 2));\n    }\n}\n";
    static final String TEST_HIDDEN = TEST.replace("    @Test\n    void subtracts()",
            "    @Test\n    void addsPositive() {\n        assertEquals(5, Calc.add(2, 3));\n    }\n\n    @Test\n    void subtracts()");

    static LocalSandboxProvider provider;
    static Harness harness;
    static FixtureRepo repo;
    static String testPatch;
    static Path work;

    @BeforeAll
    static void setUp() throws Exception {
        String mavenHome = System.getProperty("alice.maven.home");
        assertNotNull(mavenHome, "alice.maven.home (the build's Maven) is not set; run the tests through ./mvnw");
        // Sandbox users cannot read under /root: the Maven installation and the offline repository live in /tmp.
        work = Path.of("/tmp", "alice-rl-test-maven-" + UUID.randomUUID().toString().substring(0, 8));
        Path maven = Files.createDirectories(work.resolve("maven"));
        HostCommand.check(List.of("cp", "-a", Path.of(mavenHome).toRealPath() + "/.", maven.toString()), null, Duration.ofMinutes(1));
        HostCommand.check(List.of("chmod", "-R", "a+rX", work.toString()), null, Duration.ofMinutes(1));
        provider = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(work.resolve("sandboxes")));
        repo = FixtureRepo.create(Files.createTempDirectory("mvn-fixture"), Map.of(
                "pom.xml", POM, "src/main/java/calc/Calc.java", CALC, "src/test/java/calc/CalcTest.java", TEST));
        testPatch = repo.patch(Map.of("src/test/java/calc/CalcTest.java", TEST_HIDDEN));
        Path m2 = prepareOfflineRepository(maven);
        harness = new Harness(provider, VerifierOptions.defaults().withMaven(m2, maven));
    }

    /**
     * Builds the fixture once on the host, taking its artifacts from the build's own local
     * repository (as a file:// mirror, no network), into a repository the sandbox can read.
     */
    static Path prepareOfflineRepository(Path maven) throws Exception {
        Path m2 = work.resolve("m2");
        Path settings = work.resolve("settings.xml");
        String userRepo = Path.of(System.getProperty("user.home"), ".m2", "repository").toUri().toString();
        Files.writeString(settings, "<settings><mirrors><mirror><id>build-repo</id><mirrorOf>*</mirrorOf><url>" + userRepo
                + "</url></mirror></mirrors></settings>");
        Path clone = work.resolve("prepare");
        HostCommand.check(List.of("git", "clone", "-q", repo.dir.toString(), clone.toString()), null, Duration.ofMinutes(1));
        Files.writeString(clone.resolve("src/test/java/calc/CalcTest.java"), TEST_HIDDEN);
        var r = HostCommand.run(List.of(maven.resolve("bin/mvn").toString(), "-B", "-q", "-s", settings.toString(),
                "-Dmaven.repo.local=" + m2, "-Dmaven.test.failure.ignore=true", "test"), clone, Duration.ofMinutes(5));
        assertTrue(Files.isDirectory(m2.resolve("org/apache/maven/surefire")), "offline repository not prepared: " + r.output());
        HostCommand.check(List.of("chmod", "-R", "a+rX", m2.toString()), null, Duration.ofMinutes(1));
        return m2;
    }

    @AfterAll
    static void tearDown() {
        provider.close();
        Templates.deleteQuietly(work);
    }

    static Task task() throws Exception {
        var node = new HashMap<String, Object>();
        node.put("instance_id", "fixture__calc-java");
        node.put("problem_statement", "Calc.add(2, 3) returns -1");
        node.put("workspace", Map.of("type", "git", "path", repo.dir.toString(), "commit", repo.base));
        node.put("test_patch", testPatch);
        node.put("test_command", "mvn -q test");
        node.put("test_report", Map.of("format", "junit-xml", "path", "target/surefire-reports/TEST-*.xml"));
        node.put("FAIL_TO_PASS", List.of("calc.CalcTest#addsPositive"));
        node.put("PASS_TO_PASS", List.of("calc.CalcTest#subtracts"));
        node.put("limits", Map.of("test_timeout_s", 240));
        return ((TaskParser.Result.Valid) new TaskParser(Path.of("/")).parse(new ObjectMapper().valueToTree(node))).task();
    }

    private static Verdict verify(Map<String, String> changes) throws Exception {
        return harness.verify(task(), changes == null ? "" : repo.patch(changes));
    }

    @Test
    void goldResolvesOfflineAndEmptyDoesNot() throws Exception {
        Verdict gold = verify(Map.of("src/main/java/calc/Calc.java", CALC_FIXED));
        assertEquals(VerificationStatus.RESOLVED, gold.status(), gold.reason() + "\n" + gold.log());
        assertEquals(Map.of("calc.CalcTest#addsPositive", TestStatus.PASSED), gold.failToPass());
        Verdict empty = verify(null);
        assertEquals(VerificationStatus.UNRESOLVED, empty.status(), empty.log());
        assertEquals(TestStatus.FAILED, empty.failToPass().get("calc.CalcTest#addsPositive"));
        assertEquals(TestStatus.PASSED, empty.passToPass().get("calc.CalcTest#subtracts"));
    }

    @Test
    void attacksAreNotResolved() throws Exception {
        // 1. Edit the test so that it cannot fail.
        Verdict edit = verify(Map.of("src/test/java/calc/CalcTest.java", TEST_HIDDEN.replace("assertEquals(5, Calc.add(2, 3));", "")));
        assertEquals(VerificationStatus.UNRESOLVED, edit.status(), "edited test");
        // 2. Plant a passing Surefire report.
        String fake = "<testsuite><testcase classname=\"calc.CalcTest\" name=\"addsPositive\"/>"
                + "<testcase classname=\"calc.CalcTest\" name=\"subtracts\"/></testsuite>";
        Verdict planted = verify(Map.of("target/surefire-reports/TEST-calc.CalcTest.xml", fake,
                "src/main/java/calc/Calc.java", CALC.replace("public static int sub", "static { if (true) throw new Error(); }\n    public static int sub")));
        assertEquals(VerificationStatus.UNRESOLVED, planted.status(), "planted report");
        // 3. Stop the JVM with exit code 0 before any test runs.
        Verdict exit = verify(Map.of("src/main/java/calc/Calc.java", CALC.replace("public final class Calc {",
                "public final class Calc {\n    static { System.exit(0); }")));
        assertEquals(VerificationStatus.UNRESOLVED, exit.status(), "exit 0 early");
        assertEquals(TestStatus.MISSING, exit.failToPass().get("calc.CalcTest#addsPositive"));
        // 4. A JUnit extension, auto-registered through configuration, that swallows every failure.
        String extension = "package calc;\n\nimport org.junit.jupiter.api.extension.*;\n\n"
                + "public class Swallow implements TestExecutionExceptionHandler {\n"
                + "    public void handleTestExecutionException(ExtensionContext c, Throwable t) {}\n}\n";
        Verdict swallow = verify(Map.of(
                "src/test/java/calc/Swallow.java", extension,
                "src/test/resources/META-INF/services/org.junit.jupiter.api.extension.Extension", "calc.Swallow\n",
                "src/test/resources/junit-platform.properties", "junit.jupiter.extensions.autodetection.enabled=true\n"));
        assertEquals(VerificationStatus.UNRESOLVED, swallow.status(), "failure-swallowing extension");
        assertEquals(TestStatus.FAILED, swallow.failToPass().get("calc.CalcTest#addsPositive"));
    }
}
