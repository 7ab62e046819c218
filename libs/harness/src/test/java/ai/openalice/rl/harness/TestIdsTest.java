package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.events.TestStatus;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The same JUnit test listed as Class.method, Class#method, Class::method or without its package matches the report's pkg.Class#method. */
class TestIdsTest {
    // built per test, not once per class: the constructor's suffix index is what is tested (a static
    // fixture would be built once, before a mutation tool swaps the constructor)
    final TestIds REPORT = new TestIds(Map.of(
            "com.acme.json.ParserTest#parsesNull", TestStatus.PASSED,
            "com.acme.json.ParserTest#rejectsTrailingComma", TestStatus.FAILED,
            "com.acme.util.Strings#trim", TestStatus.PASSED,
            "com.acme.other.Strings#trim", TestStatus.FAILED,
            "tests/test_io.py::TestRead::test_empty", TestStatus.PASSED,
            "com.acme.io.ReaderTest#empty", TestStatus.PASSED,
            "com.acme.io.ReaderTest#ignored", TestStatus.SKIPPED,
            "com.acme.io.WriterTest#ignored", TestStatus.SKIPPED));

    @Test
    void spellingsOfOneTestMatch() {
        assertEquals(TestStatus.PASSED, REPORT.outcome("com.acme.json.ParserTest#parsesNull"), "exact");
        assertEquals(TestStatus.PASSED, REPORT.outcome("com.acme.json.ParserTest.parsesNull"), "SWE-PolyBench's dot");
        assertEquals(TestStatus.PASSED, REPORT.outcome("com.acme.json.ParserTest::parsesNull"), "double colon");
        assertEquals(TestStatus.FAILED, REPORT.outcome("ParserTest.rejectsTrailingComma"), "without the package");
        assertEquals(TestStatus.PASSED, REPORT.outcome("tests/test_io.py::TestRead::test_empty"), "pytest ids match exactly");
    }

    @Test
    void anAmbiguousOrAbsentTestIsMissing() {
        assertEquals(TestStatus.MISSING, REPORT.outcome("Strings.trim"), "two classes named Strings: no guess");
        assertEquals(TestStatus.PASSED, REPORT.outcome("util.Strings.trim"), "a longer suffix decides");
        assertEquals(TestStatus.MISSING, REPORT.outcome("ParserTest.parsesUndefined"));
        assertEquals(TestStatus.MISSING, REPORT.outcome("serTest.parsesNull"), "suffixes start at a dot");
    }

    @Test
    void aListedClassStandsForAllItsTests() {
        assertEquals(TestStatus.FAILED, REPORT.outcome("com.acme.json.ParserTest"), "one of its two tests failed");
        assertEquals(TestStatus.PASSED, REPORT.outcome("com.acme.io.ReaderTest"), "one passed, one skipped");
        assertEquals(TestStatus.SKIPPED, REPORT.outcome("com.acme.io.WriterTest"), "all skipped");
        assertEquals(TestStatus.MISSING, REPORT.outcome("com.acme.io.Reader"), "a class name is not a prefix of another");
        assertEquals(TestStatus.MISSING, REPORT.outcome("com.acme.io.StreamTest"), "no test of the class ran");
    }
}
