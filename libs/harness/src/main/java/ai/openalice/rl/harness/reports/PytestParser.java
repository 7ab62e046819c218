package ai.openalice.rl.harness.reports;

import ai.openalice.rl.events.TestStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the "short test summary info" lines of {@code pytest -rA}: {@code PASSED path::Class::test},
 * {@code FAILED path::test - message}, {@code ERROR ...}, {@code XFAIL ...}, {@code XPASS ...}.
 * Ids are {@code path::Class::test} (parametrised ids keep their brackets).
 */
public final class PytestParser implements TestReportParser {
    private static final Pattern LINE = Pattern.compile("^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED) (\\S+?::\\S+?)(?: - .*)?$",
            Pattern.MULTILINE);

    @Override
    public Map<String, TestStatus> parse(String output, List<String> files) {
        var results = new LinkedHashMap<String, TestStatus>();
        Matcher m = LINE.matcher(output.replace("\r\n", "\n"));
        while (m.find()) {
            TestStatus status = switch (m.group(1)) {
                case "PASSED", "XFAIL" -> TestStatus.PASSED;
                case "FAILED", "XPASS" -> TestStatus.FAILED;
                case "ERROR" -> TestStatus.ERROR;
                default -> TestStatus.SKIPPED;
            };
            results.merge(m.group(2), status, TestReportParser::worse);
        }
        return results;
    }
}
