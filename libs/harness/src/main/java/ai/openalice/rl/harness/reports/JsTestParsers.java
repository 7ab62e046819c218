package ai.openalice.rl.harness.reports;

import ai.openalice.rl.events.TestStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * JavaScript test runners' console output, with test ids as SWE-bench's parsers name them: the
 * test's own title, without its describe blocks.
 */
public final class JsTestParsers {
    private JsTestParsers() {}

    /**
     * Jest with {@code --verbose}: {@code ✓ title (2 ms)} passed, {@code ✕ title} failed,
     * {@code ○ skipped title} skipped (the word "skipped" is Jest's, not the title's).
     */
    public static final class Jest implements TestReportParser {
        private static final Pattern LINE = Pattern.compile("^\\s*(✓|✕|○)\\s(?:skipped\\s)?(.+?)(?:\\s\\(\\d+\\s*m?s\\))?\\s*$", Pattern.MULTILINE);

        @Override
        public Map<String, TestStatus> parse(String output, List<String> files) {
            var results = new LinkedHashMap<String, TestStatus>();
            Matcher m = LINE.matcher(output.replace("\r\n", "\n"));
            while (m.find()) {
                TestStatus s = switch (m.group(1)) {
                    case "✓" -> TestStatus.PASSED;
                    case "✕" -> TestStatus.FAILED;
                    default -> TestStatus.SKIPPED;
                };
                results.merge(m.group(2).strip(), s, TestReportParser::worse);
            }
            return results;
        }
    }

    /**
     * Mocha's spec reporter, before its "N passing" summary (after it come the failures' details):
     * {@code ✔ title (5ms)} passed, {@code 1) title} failed, {@code - title} pending.
     */
    public static final class Mocha implements TestReportParser {
        private static final Pattern SUMMARY = Pattern.compile("\\n[ \\t]*\\d+ passing");
        private static final Pattern LINE = Pattern.compile("^\\s+(?:(✔|✓)\\s(.+?)(?:\\s\\(\\d+\\s*m?s\\))?|(\\d+)\\)\\s(.+)|-\\s(.+))\\s*$", Pattern.MULTILINE);

        @Override
        public Map<String, TestStatus> parse(String output, List<String> files) {
            String log = output.replace("\r\n", "\n");
            Matcher end = SUMMARY.matcher(log);
            String run = end.find() ? log.substring(0, end.start()) : log;
            var results = new LinkedHashMap<String, TestStatus>();
            Matcher m = LINE.matcher(run);
            while (m.find()) {
                if (m.group(1) != null) {
                    results.merge(m.group(2).strip(), TestStatus.PASSED, TestReportParser::worse);
                } else if (m.group(3) != null) {
                    results.merge(m.group(4).strip(), TestStatus.FAILED, TestReportParser::worse);
                } else {
                    results.merge(m.group(5).strip(), TestStatus.SKIPPED, TestReportParser::worse);
                }
            }
            return results;
        }
    }
}
