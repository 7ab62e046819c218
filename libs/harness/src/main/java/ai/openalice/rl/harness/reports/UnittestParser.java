package ai.openalice.rl.harness.reports;

import ai.openalice.rl.events.TestStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code python -m unittest -v} output. Ids are {@code test_method (module.Class)}; Python
 * 3.11+ prints {@code test_method (module.Class.test_method)}, which is normalised to the same id.
 * A test with a docstring prints the docstring's first line before {@code ... ok}.
 */
public final class UnittestParser implements TestReportParser {
    // test_x (pkg.mod.Class) ... ok      |   test_x (pkg.mod.Class.test_x) ... FAIL
    // test_x (pkg.mod.Class)\nDocstring line ... ok
    private static final Pattern RESULT = Pattern.compile(
            "^([A-Za-z_]\\w*) \\(([\\w.]+)\\)(?:\\n[^\\n]*?)? \\.\\.\\. (ok|FAIL|ERROR|skipped(?: .*)?|expected failure|unexpected success)$",
            Pattern.MULTILINE);

    @Override
    public Map<String, TestStatus> parse(String output, List<String> files) {
        var results = new LinkedHashMap<String, TestStatus>();
        Matcher m = RESULT.matcher(output.replace("\r\n", "\n"));
        while (m.find()) {
            String method = m.group(1);
            String owner = m.group(2);
            if (owner.startsWith("unittest.loader.") || owner.startsWith("unittest.suite.")) {
                continue; // _FailedTest / _ErrorHolder: a module that failed to import; its tests stay missing
            }
            if (owner.endsWith("." + method)) {
                owner = owner.substring(0, owner.length() - method.length() - 1);
            }
            String id = method + " (" + owner + ")";
            TestStatus status = switch (m.group(3)) {
                case "ok", "expected failure" -> TestStatus.PASSED;
                case "FAIL", "unexpected success" -> TestStatus.FAILED;
                case "ERROR" -> TestStatus.ERROR;
                default -> TestStatus.SKIPPED;
            };
            results.merge(id, status, TestReportParser::worse);
        }
        return results;
    }
}
