package ai.openalice.rl.harness.reports;

import ai.openalice.rl.events.TestStatus;
import java.util.List;
import java.util.Map;

/** Per-test outcomes read from a test run: test id → status. A test that is not in the map did not run. */
public interface TestReportParser {

    /**
     * @param output the run's stdout and stderr, for formats read from the console
     * @param files the report files' contents, for formats written to files (JUnit XML)
     */
    Map<String, TestStatus> parse(String output, List<String> files);

    /** The log {@link #parse} reads from a run's two streams: stdout, then stderr, unless the format's own harness joins them otherwise. */
    default String log(String stdout, String stderr) {
        return stdout + "\n" + stderr;
    }

    /**
     * What the last {@link #parse} refused, said for the verdict: report files it would not read
     * (named by {@code names}, parallel to the files it was given) and outcomes it did not take.
     */
    default List<String> refused(List<String> names) {
        return List.of();
    }

    /** Keeps the worse of two outcomes for one id (a test reported twice, e.g. by two report files). */
    static TestStatus worse(TestStatus a, TestStatus b) {
        return rank(a) >= rank(b) ? a : b;
    }

    private static int rank(TestStatus s) {
        return switch (s) {
            case PASSED -> 0;
            case SKIPPED -> 1;
            case MISSING -> 2;
            case FAILED -> 3;
            case ERROR -> 4;
        };
    }
}
