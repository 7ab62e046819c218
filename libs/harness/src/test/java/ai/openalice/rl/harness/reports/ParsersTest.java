package ai.openalice.rl.harness.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.events.TestStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ParsersTest {

    @Test
    void unittestBothIdFormsDocstringsAndImportFailures() {
        String out = """
                test_a (pkg.mod.ATest) ... ok
                test_b (pkg.mod.ATest.test_b) ... FAIL
                test_c (pkg.mod.ATest)
                Adds two numbers. ... ERROR
                test_d (pkg.mod.ATest.test_d) ... skipped 'no network'
                test_e (pkg.mod.ATest) ... expected failure
                test_f (pkg.mod.ATest) ... unexpected success
                test_x (unittest.loader._FailedTest.test_x) ... ERROR

                ----------------------------------------------------------------------
                Ran 7 tests in 0.001s
                """;
        assertEquals(Map.of(
                "test_a (pkg.mod.ATest)", TestStatus.PASSED,
                "test_b (pkg.mod.ATest)", TestStatus.FAILED,
                "test_c (pkg.mod.ATest)", TestStatus.ERROR,
                "test_d (pkg.mod.ATest)", TestStatus.SKIPPED,
                "test_e (pkg.mod.ATest)", TestStatus.PASSED,
                "test_f (pkg.mod.ATest)", TestStatus.FAILED), new UnittestParser().parse(out, List.of()));
    }

    @Test
    void pytestShortSummary() {
        String out = """
                =========================== short test summary info ============================
                PASSED tests/test_x.py::TestX::test_ok
                PASSED tests/test_x.py::test_param[1-2]
                FAILED tests/test_x.py::test_bad - AssertionError: assert 1 == 2
                ERROR tests/test_y.py::test_fixture - RuntimeError: boom
                XFAIL tests/test_x.py::test_known - reason: bug 12
                XPASS tests/test_x.py::test_lucky
                SKIPPED [1] tests/test_z.py:3: no db
                ==================== 1 failed, 2 passed, 1 error in 0.12s =====================
                """;
        assertEquals(Map.of(
                "tests/test_x.py::TestX::test_ok", TestStatus.PASSED,
                "tests/test_x.py::test_param[1-2]", TestStatus.PASSED,
                "tests/test_x.py::test_bad", TestStatus.FAILED,
                "tests/test_y.py::test_fixture", TestStatus.ERROR,
                "tests/test_x.py::test_known", TestStatus.PASSED,
                "tests/test_x.py::test_lucky", TestStatus.FAILED), new PytestParser().parse(out, List.of()));
    }

    @Test
    void junitXmlFromSurefireWithFlakesAndBrokenFiles() {
        String a = """
                <?xml version="1.0" encoding="UTF-8"?>
                <testsuite name="calc.CalcTest" tests="5">
                  <testcase name="adds" classname="calc.CalcTest" time="0.01"/>
                  <testcase name="subtracts" classname="calc.CalcTest"><failure message="x">trace</failure></testcase>
                  <testcase name="divides" classname="calc.CalcTest"><error type="java.lang.ArithmeticException"/></testcase>
                  <testcase name="later" classname="calc.CalcTest"><skipped/></testcase>
                  <testcase name="flaky" classname="calc.CalcTest"><flakyFailure message="once"/></testcase>
                </testsuite>
                """;
        String evil = "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>"
                + "<testsuite><testcase name=\"&e;\" classname=\"calc.Evil\"/></testsuite>";
        assertEquals(Map.of(
                "calc.CalcTest#adds", TestStatus.PASSED,
                "calc.CalcTest#subtracts", TestStatus.FAILED,
                "calc.CalcTest#divides", TestStatus.ERROR,
                "calc.CalcTest#later", TestStatus.SKIPPED,
                "calc.CalcTest#flaky", TestStatus.PASSED), new JunitXmlParser().parse("", List.of(a, "<not xml", evil)));
    }
}
