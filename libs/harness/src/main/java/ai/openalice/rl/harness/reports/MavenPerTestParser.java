package ai.openalice.rl.harness.reports;

import ai.openalice.rl.events.TestStatus;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a log of one Maven run per test, as SWE-bench's Java specs run them under {@code set -x}:
 * each traced command line ({@code + mvn ... -Dtest=pkg.Class#method}) opens a test, and the next
 * {@code BUILD SUCCESS} or {@code BUILD FAILURE} closes it — passed or failed. Stricter than a
 * build result alone: a run whose summary says {@code Tests run: 0} matched no test, and the test is
 * missing, not passed. Runs whose results appear out of order are paired first in, first out.
 */
public final class MavenPerTestParser implements TestReportParser {
    private static final Pattern COMMAND = Pattern.compile("^\\++ .*-Dtest=(\\S+)");
    private static final Pattern SUMMARY = Pattern.compile("^\\[(?:INFO|ERROR|WARNING)\\] Tests run: (\\d+), Failures: \\d+, Errors: \\d+, Skipped: \\d+\\s*$");
    private static final Pattern BUILD = Pattern.compile("^\\[(?:INFO|ERROR)\\] BUILD (SUCCESS|FAILURE)\\s*$");

    @Override
    public Map<String, TestStatus> parse(String output, List<String> files) {
        var results = new LinkedHashMap<String, TestStatus>();
        var pending = new ArrayDeque<String>();
        Integer ran = null;
        for (String line : output.replace("\r\n", "\n").split("\n")) {
            Matcher c = COMMAND.matcher(line);
            if (c.find()) {
                pending.add(c.group(1));
                ran = null;
                continue;
            }
            Matcher s = SUMMARY.matcher(line);
            if (s.find()) {
                ran = Integer.parseInt(s.group(1));
                continue;
            }
            Matcher b = BUILD.matcher(line);
            if (b.find() && !pending.isEmpty()) {
                String test = pending.poll();
                TestStatus status = b.group(1).equals("FAILURE") ? TestStatus.FAILED : ran != null && ran == 0 ? TestStatus.MISSING : TestStatus.PASSED;
                results.merge(test, status, TestReportParser::worse);
                ran = null;
            }
        }
        return results;
    }
}
