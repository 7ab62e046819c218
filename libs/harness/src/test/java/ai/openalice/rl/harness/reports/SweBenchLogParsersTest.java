package ai.openalice.rl.harness.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.task.TestReportSpec;
import ai.openalice.rl.testkit.PythonReference;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * SWE-bench's log parsers against the official swebench package's (5.0.2, and 4.1.0's for pytest-v2; its own code run by
 * {@code dev/python/swebench_reference.py}) on logs of real runs captured on the project's machine
 * ({@code logs/swebench/}): one pytest 9.2 suite (a pass, a failure, a skip, an expected failure, a
 * fixture error, a class, and parameters that are a path, hold a space or a dash) run as SWE-bench's
 * commands run it — {@code pytest --no-header -rA --tb=no -p no:cacheprovider}, astropy's
 * {@code -rA -vv -o console_output_style=classic --tb=no} and seaborn's {@code --no-header -rA};
 * Django 5.2's runner at verbosity 2 on an app with a pass, a failure, an error, a skip, a test
 * that prints before its verdict and a database test; SymPy 1.14's own runner ({@code bin/test}'s)
 * verbose on a pass, a failure, an error, an expected failure and a skip; and {@code go test -v}
 * (Go 1.26) on a pass, a failure, a skip and table subtests. Each test's status must be the
 * official parser's, mapped as {@link SweBenchLogParsers} says (XFAIL passes).
 */
class SweBenchLogParsersTest {
    static final Path LOGS = Path.of("src/test/resources/logs/swebench");

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"pytest-rA, pytest-rA.log", "pytest-options, pytest-rA.log", "pytest-v2, pytest-vv-classic.log", "pytest-v2, pytest-rA.log",
            "pytest-v2-joined, pytest-vv-classic.log", "pytest-v2-joined, pytest-rA.log",
            "matplotlib, pytest-rA.log", "seaborn, pytest-seaborn.log", "seaborn, pytest-vv-classic.log", "django, django-v2.log",
            "sympy, sympy-verbose.log", "go-test, go-test-v.log"})
    void readsAsTheOfficialParserReads(String parser, String log) throws Exception {
        Path file = LOGS.resolve(log);
        JsonNode official = PythonReference.swebenchReference("parse", parser, file.toAbsolutePath().toString()).get("results");
        var expected = new TreeMap<String, TestStatus>();
        official.fields().forEachRemaining(e -> expected.put(e.getKey(), SweBenchLogParsers.status(e.getValue().asText())));
        var ours = new TreeMap<>(SweBenchLogParsers.named(parser).parse(Files.readString(file), List.of()));
        assertEquals(expected, ours);
        assertEquals(true, expected.size() >= 3, "the log has tests for the parser to read: " + expected);
    }

    /** What the official parsers' rules come to on these logs, worked by hand from them (so a reference that read nothing would not pass). */
    @Test
    void theRulesByHand() throws Exception {
        var pytest = SweBenchLogParsers.named("pytest-rA").parse(Files.readString(LOGS.resolve("pytest-rA.log")), List.of());
        var expected = new LinkedHashMap<String, TestStatus>();
        expected.put("tests/test_calc.py::test_adds", TestStatus.PASSED);
        expected.put("tests/test_calc.py::test_paths[/tmp/data/a.txt]", TestStatus.PASSED);
        expected.put("tests/test_calc.py::test_paths[b", TestStatus.PASSED); // split on whitespace, as SWE-bench splits
        expected.put("tests/test_calc.py::test_paths[x-y]", TestStatus.PASSED);
        expected.put("tests/test_calc.py::TestGroup::test_inside", TestStatus.PASSED);
        expected.put("tests/test_calc.py::test_known_bug", TestStatus.PASSED); // XFAIL
        expected.put("tests/test_calc.py::test_uses_broken", TestStatus.ERROR);
        expected.put("tests/test_calc.py::test_adds_wrong", TestStatus.FAILED); // "SKIPPED [1] path:16" is a count, not a test
        assertEquals(expected, pytest);
        var options = SweBenchLogParsers.named("pytest-options").parse(Files.readString(LOGS.resolve("pytest-rA.log")), List.of());
        assertEquals(TestStatus.PASSED, options.get("tests/test_calc.py::test_paths[/a.txt]"), "a path parameter cut to its last part");
        var django = SweBenchLogParsers.named("django").parse(Files.readString(LOGS.resolve("django-v2.log")), List.of());
        assertEquals(TestStatus.PASSED, django.get("test_prints (calc.tests.ArithmeticTests.test_prints)"), "its 'ok' came on the next line");
        assertEquals(TestStatus.ERROR, django.get("test_raises"), "'ERROR: test_raises (…)' keys the bare name too");
        var sympy = SweBenchLogParsers.named("sympy").parse(Files.readString(LOGS.resolve("sympy-verbose.log")), List.of());
        assertEquals(Map.of("sympy/core/tests/test_capture_calc.py:test_raises_error", TestStatus.FAILED,
                "sympy/core/tests/test_capture_calc.py::test_wrong", TestStatus.FAILED, "test_simplifies", TestStatus.PASSED,
                "test_wrong", TestStatus.FAILED, "test_raises_error", TestStatus.ERROR), sympy,
                "test_known's 'f' and the last line's '[FAIL]' are no verdicts SWE-bench reads");
        var go = SweBenchLogParsers.named("go-test").parse(Files.readString(LOGS.resolve("go-test-v.log")), List.of());
        assertEquals(Map.of("TestAdd", TestStatus.PASSED, "TestAddWrong", TestStatus.FAILED, "TestLater", TestStatus.SKIPPED, "TestTable",
                TestStatus.FAILED, "TestTable/zero", TestStatus.PASSED, "TestTable/two_and_two", TestStatus.PASSED, "TestTable/wrong",
                TestStatus.FAILED), go);
    }

    /**
     * SWE-Gym's pydantic parser (compared with the fork's own in cli's SweGymSpecsTest), its rules by
     * hand: a verbose line's {@code FAILED [ 50%]} mark cut, a {@code PASSED [ 60%]} one not (so that
     * line is no verdict), pytest's skip count {@code [1]} kept as a key, a one-word status line skipped.
     */
    @Test
    void pydanticsRulesByHand() {
        String log = String.join("\n", "tests/a.py::test_x FAILED                [ 50%]", "tests/a.py::test_y PASSED                [ 60%]",
                "\u001b[32mtests/a.py::test_z PASSED\u001b[0m", "SKIPPED [1] tests/a.py:3: later", "FAILED", "FAILED tests/a.py::test_w - assert 1 == 2");
        var expected = new LinkedHashMap<String, TestStatus>();
        expected.put("tests/a.py::test_x", TestStatus.FAILED);
        expected.put("tests/a.py::test_z", TestStatus.PASSED); // the escape character and "[32m" dropped
        expected.put("[1]", TestStatus.SKIPPED);
        expected.put("tests/a.py::test_w", TestStatus.FAILED);
        assertEquals(expected, SweBenchLogParsers.named("pytest-pydantic").parse(log, List.of()));
    }

    @Test
    void everyNamedParserIsOneATaskMayName() {
        for (String name : List.of("pytest-rA", "pytest-options", "pytest-v2", "pytest-v2-joined", "pytest-pydantic", "django", "seaborn", "sympy", "matplotlib", "go-test")) {
            assertNotNull(SweBenchLogParsers.named(name), name);
            assertEquals(true, TestReportSpec.Log.PARSERS.contains(name), name + " is accepted in a task's test_report");
        }
    }
}
