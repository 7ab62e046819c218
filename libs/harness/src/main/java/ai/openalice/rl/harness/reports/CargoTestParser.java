package ai.openalice.rl.harness.reports;

import ai.openalice.rl.events.TestStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads Rust's libtest output ({@code cargo test}): one line per test, {@code test path::name ... ok},
 * {@code ... FAILED} or {@code ... ignored} (with a reason after a comma in newer toolchains). Ids
 * are the test's path, as {@code cargo test NAME} takes it.
 */
public final class CargoTestParser implements TestReportParser {
    private static final Pattern LINE = Pattern.compile("^test (\\S+) \\.\\.\\. (ok|FAILED|ignored)\\b", Pattern.MULTILINE);

    @Override
    public Map<String, TestStatus> parse(String output, List<String> files) {
        var results = new LinkedHashMap<String, TestStatus>();
        Matcher m = LINE.matcher(output.replace("\r\n", "\n"));
        while (m.find()) {
            TestStatus status = switch (m.group(2)) {
                case "ok" -> TestStatus.PASSED;
                case "FAILED" -> TestStatus.FAILED;
                default -> TestStatus.SKIPPED;
            };
            results.merge(m.group(1), status, TestReportParser::worse);
        }
        return results;
    }
}
