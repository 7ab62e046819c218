package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.VerificationStatus;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import ai.openalice.rl.sandbox.local.Templates;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The harness on a small Maven/JUnit 5 project built offline in the sandbox (no network): the
 * dependencies come from a local repository mounted read-only. Gold resolves, empty does not,
 * and the attacks on the tests or the test runner are not resolved.
 */
class MavenHarnessTest {
    static LocalSandboxProvider provider;
    static Harness harness;
    static FixtureRepo repo;

    static MavenFixture fixture;

    @BeforeAll
    static void setUp() throws Exception {
        fixture = MavenFixture.create(System.getProperty("alice.maven.home"));
        provider = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(fixture.work.resolve("sandboxes")));
        repo = fixture.repo;
        harness = new Harness(provider, fixture.options());
    }

    @AfterAll
    static void tearDown() {
        provider.close();
        Templates.deleteQuietly(fixture.work);
    }

    private static Verdict verify(Map<String, String> changes) throws Exception {
        return harness.verify(fixture.task(), changes == null ? "" : repo.patch(changes));
    }

    @Test
    void goldResolvesOfflineAndEmptyDoesNot() throws Exception {
        Verdict gold = verify(Map.of("src/main/java/calc/Calc.java", MavenFixture.CALC_FIXED));
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
        Verdict edit = verify(Map.of("src/test/java/calc/CalcTest.java", MavenFixture.TEST_HIDDEN.replace("assertEquals(5, Calc.add(2, 3));", "")));
        assertEquals(VerificationStatus.UNRESOLVED, edit.status(), "edited test");
        // 2. Plant a passing Surefire report.
        String fake = "<testsuite><testcase classname=\"calc.CalcTest\" name=\"addsPositive\"/>"
                + "<testcase classname=\"calc.CalcTest\" name=\"subtracts\"/></testsuite>";
        Verdict planted = verify(Map.of("target/surefire-reports/TEST-calc.CalcTest.xml", fake,
                "src/main/java/calc/Calc.java", MavenFixture.CALC.replace("public static int sub", "static { if (true) throw new Error(); }\n    public static int sub")));
        assertEquals(VerificationStatus.UNRESOLVED, planted.status(), "planted report");
        // 3. Stop the JVM with exit code 0 before any test runs.
        Verdict exit = verify(Map.of("src/main/java/calc/Calc.java", MavenFixture.CALC.replace("public final class Calc {",
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
