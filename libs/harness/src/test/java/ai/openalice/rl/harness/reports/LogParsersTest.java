package ai.openalice.rl.harness.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.events.TestStatus;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The log parsers on logs of real runs, captured on the project's machine (test resources):
 * {@code cargo test} of a crate with a passing, a failing, an ignored and a nested test; three Maven
 * 3.9 runs of one test each under {@code set -x} — a pass, a failure, and a test that does not exist;
 * Jest 29 ({@code --verbose}) and Mocha 10 (spec reporter) on suites with passing, failing, skipped
 * and nested tests.
 */
class LogParsersTest {
    static String log(String name) throws Exception {
        try (InputStream in = LogParsersTest.class.getResourceAsStream("/logs/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void cargoTest() throws Exception {
        assertEquals(Map.of("tests::adds_zero", TestStatus.PASSED, "tests::nested::deep", TestStatus.PASSED, "tests::slow", TestStatus.SKIPPED,
                "tests::adds", TestStatus.FAILED), new CargoTestParser().parse(log("cargo-test.log"), List.of()));
    }

    @Test
    void mavenOneRunPerTest() throws Exception {
        assertEquals(Map.of("demo.CalcTest#addsZero", TestStatus.PASSED, "demo.CalcTest#adds", TestStatus.FAILED,
                "demo.CalcTest#missing", TestStatus.MISSING), new MavenPerTestParser().parse(log("maven-per-test.log"), List.of()));
    }

    @Test
    void jestVerbose() throws Exception {
        assertEquals(Map.of("top level", TestStatus.PASSED, "adds zero", TestStatus.PASSED, "adds two numbers", TestStatus.FAILED,
                "is skipped", TestStatus.SKIPPED), new JsTestParsers.Jest().parse(log("jest-verbose.log"), List.of()));
    }

    @Test
    void mochaSpecReporter() throws Exception {
        // the failure's details after "2 passing" repeat its title ("1) add\n adds two numbers:"): not read
        assertEquals(Map.of("adds zero", TestStatus.PASSED, "adds two numbers", TestStatus.FAILED, "is pending", TestStatus.SKIPPED,
                "deep", TestStatus.PASSED), new JsTestParsers.Mocha().parse(log("mocha-spec.log"), List.of()));
    }
}
