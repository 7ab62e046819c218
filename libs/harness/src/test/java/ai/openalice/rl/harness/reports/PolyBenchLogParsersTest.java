package ai.openalice.rl.harness.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.task.TestReportSpec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * SWE-PolyBench's ten log parsers against its own (release 9c836c5, run by
 * {@code dev/python/polybench_reference.py}, output captured in {@code polybench-reference.json}
 * because its evaluation package is on no registry CI reaches) on logs of real runs captured on the
 * project's machine as its harness makes them (stderr, stdout, its closing lines; the command under
 * {@code set -uxo pipefail}): Maven 3.9 with Surefire 3.5 and JUnit 6 (a pass, a failure, an error,
 * a skip, parameters, a nested class) with the XML reports printed, and the same build failing to
 * compile; pytest 9.2 with {@code -rA} and {@code -v}; unittest {@code -v} (Python 3.11: a subtest,
 * an error, a skip); Jest 29 {@code --json}; Mocha 10 {@code --reporter json}, run directly and
 * through {@code npm test}, and with a reporter that adds each test's file and status (written for
 * this capture: {@code dev/python/polybench-capture/file-reporter.js}); Node 20's TAP reporter.
 * The Bazel summary is written by hand in Bazel's format (Bazel cannot run here). Every parser reads
 * every log, so each is also checked on logs it is not meant for.
 */
class PolyBenchLogParsersTest {
    static final Path LOGS = Path.of("src/test/resources/logs/polybench");
    static final List<String> CLASSES = List.of("JavaGenericParser", "PythonPyUnit", "JavascriptGenericParser", "JavascriptJestPR", "JavascriptMocha",
            "TypescriptJest", "TypescriptJestTW", "TypescriptMocha", "TypescriptMochaFileName", "TypescriptBazelAngular");

    static JsonNode reference() throws Exception {
        try (InputStream in = PolyBenchLogParsersTest.class.getResourceAsStream("/polybench-reference.json")) {
            return new ObjectMapper().readTree(in);
        }
    }

    @Test
    void everyParserReadsEveryLogAsSwePolyBenchsOwn() throws Exception {
        JsonNode parsed = reference().get("parsed");
        assertEquals(11, parsed.size(), "the captured logs");
        int compared = 0;
        int nonEmpty = 0;
        for (var log : parsed.properties()) {
            String text = Files.readString(LOGS.resolve(log.getKey() + ".log"));
            for (String cls : CLASSES) {
                JsonNode expected = log.getValue().get(cls);
                assertNotNull(expected, cls + " on " + log.getKey());
                String name = PolyBenchLogParsers.forClass(cls);
                var got = PolyBenchLogParsers.read(name, text);
                assertEquals(strings(expected.get("passed_tests")), got.passed(), cls + " (" + name + ") passed on " + log.getKey());
                assertEquals(strings(expected.get("failed_tests")), got.failed(), cls + " (" + name + ") failed on " + log.getKey());
                compared++;
                nonEmpty += got.passed().isEmpty() && got.failed().isEmpty() ? 0 : 1;
            }
        }
        assertEquals(110, compared);
        assertTrue(nonEmpty >= 16, "the logs exercise the parsers: " + nonEmpty + " non-empty readings");
    }

    @Test
    void everyNameIsOneATaskMayGive() {
        for (String cls : CLASSES) {
            String name = PolyBenchLogParsers.forClass(cls);
            assertNotNull(PolyBenchLogParsers.named(name), cls);
            assertTrue(TestReportSpec.Log.PARSERS.contains(name), name + " is accepted in a task's test_report");
        }
    }

    /** Their harness cuts a report at its closing line; ours ends the log there: the same reading without it. */
    @Test
    void aLogWithoutTheClosingLinesReadsTheSame() throws Exception {
        for (String log : List.of("jest-json", "mocha-json", "mocha-file-reporter", "maven-surefire-xml", "pytest-v")) {
            String text = Files.readString(LOGS.resolve(log + ".log"));
            String cut = text.substring(0, text.indexOf("\nContainer exited"));
            for (String cls : CLASSES) {
                String name = PolyBenchLogParsers.forClass(cls);
                assertEquals(PolyBenchLogParsers.read(name, text), PolyBenchLogParsers.read(name, cut), name + " on " + log);
            }
        }
    }

    /** As the harness runs them: stderr first (Jest's human report, which holds braces, would otherwise follow its JSON). */
    @Test
    void theHarnessGivesStderrThenStdout() {
        TestReportParser p = PolyBenchLogParsers.named("polybench-ts-jest");
        String json = "{\"numFailedTestSuites\":0,\"testResults\":[{\"name\":\"/r/a.test.ts\",\"assertionResults\":"
                + "[{\"fullName\":\"a works\",\"title\":\"works\",\"status\":\"passed\"}]}],\"wasInterrupted\":false}\n";
        String stderr = "PASS a.test.ts\n  > 4 |   test('works', () => { expect(1).toBe(1); });\n";
        assertEquals(Map.of("/r/a.test.ts->a works", TestStatus.PASSED), p.parse(p.log(json, stderr), List.of()));
        assertEquals(Map.of(), p.parse(json + stderr, List.of()), "after the JSON, the last brace is the code frame's: no report, as theirs");
    }

    /** Rules by hand, each from their code: what passes, what fails, what is neither. */
    @Test
    void rulesByHand() {
        var java = PolyBenchLogParsers.read("polybench-java", """
                <testsuite name="S"><testcase name="ok" classname="p.A"/><testcase name="bad" classname="p.A"><failure/></testcase>\
                <testcase name="err" classname="p.A"><error/></testcase><testcase name="skip" classname="p.A"><skipped/></testcase>\
                <testcase classname="p.A"/><testcase name="bare"/></testsuite>""");
        assertEquals(List.of("p.A.ok", "p.A.None", "bare"), java.passed(), "a missing name is Python's None; no classname, no prefix");
        assertEquals(List.of("p.A.bad", "p.A.err"), java.failed());
        assertEquals(List.of(), PolyBenchLogParsers.read("polybench-java", "[ERROR] COMPILATION ERROR\n<testsuite><testcase name=\"t\"/></testsuite>").passed(),
                "a build that failed without test failures ran nothing");
        assertEquals(List.of(), PolyBenchLogParsers.read("polybench-java", "<!DOCTYPE x [<!ENTITY e \"t\">]><testsuite><testcase name=\"&e;\"/></testsuite>").passed(),
                "an entity the report does not declare: it does not parse, no tests");

        var python = PolyBenchLogParsers.read("polybench-python", """
                ============================= test session starts ==============================
                t/test_a.py::TestA::test_one PASSED
                t/test_a.py::test_two FAILED
                t/test_a.py::test_three ERROR
                t/test_a.py::test_four[x-1] PASSED
                =========================== short test summary info ============================
                FAILED t/test_a.py::test_five""");
        assertEquals(List.of("t/test_a.py:TestA:test_one", "t/test_a.py:None:test_four[x-1]"), python.passed());
        assertEquals(List.of("t/test_a.py:None:test_two"), python.failed(), "ERROR is neither; the summary is outside the session");

        var unittest = PolyBenchLogParsers.read("polybench-python", "test_a (m.T) ... ok\ntest_b (m.T) ... \nnoise\nFAIL\ntest_c (m.T) ... ERROR\n");
        assertEquals(List.of("m.T:test_a:"), unittest.passed());
        assertEquals(List.of("m.T:test_b:"), unittest.failed(), "a status lines later; ERROR is neither");

        var tap = PolyBenchLogParsers.read("polybench-js", "TAP version 13\nok 1 - a\nnot ok 2 - b\n    ok 1 - nested\n");
        assertEquals(new PolyBenchLogParsers.Lists(List.of("1 - a"), List.of("2 - b")), tap, "indented subtests are not read");

        var bazel = PolyBenchLogParsers.read("polybench-bazel", "//pkg:test   \u001b[32mPASSED\u001b[0m in 1s\n//pkg:other FAILED in 2s\n");
        assertEquals(new PolyBenchLogParsers.Lists(List.of("/pkg:test"), List.of("/pkg:other")), bazel, "one slash of // dropped");
    }

    /** Mocha's reports: a missing field empties the reading, as their catch-all does. */
    @Test
    void aReportMissingAFieldGivesNothing() {
        String ok = "{\"stats\":{},\"passes\":[{\"fullTitle\":\"a\"}],\"failures\":[{\"fullTitle\":\"b\"}]}\nContainer exited with status code: 1";
        assertEquals(new PolyBenchLogParsers.Lists(List.of("a"), List.of("b")), PolyBenchLogParsers.read("polybench-js-mocha", ok));
        assertEquals(new PolyBenchLogParsers.Lists(List.of(), List.of()), PolyBenchLogParsers.read("polybench-js-mocha", ok.replace(",\"failures\":[{\"fullTitle\":\"b\"}]", "")));
        assertEquals(new PolyBenchLogParsers.Lists(List.of(), List.of()), PolyBenchLogParsers.read("polybench-ts-mocha-file", ok),
                "TypescriptMochaFileName reads tests[], which plain Mocha does not print");
    }

    private static List<String> strings(JsonNode array) {
        var out = new ArrayList<String>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
