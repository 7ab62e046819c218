package ai.openalice.rl.harness;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TestReportSpec;
import ai.openalice.rl.harness.reports.CargoTestParser;
import ai.openalice.rl.harness.reports.JsTestParsers;
import ai.openalice.rl.harness.reports.JunitXmlParser;
import ai.openalice.rl.harness.reports.MavenPerTestParser;
import ai.openalice.rl.harness.reports.PolyBenchLogParsers;
import ai.openalice.rl.harness.reports.PytestParser;
import ai.openalice.rl.harness.reports.SweBenchLogParsers;
import ai.openalice.rl.harness.reports.TestReportParser;
import ai.openalice.rl.harness.reports.UnittestParser;
import ai.openalice.rl.sandbox.ExecResult;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One run of a task's test command in a sandbox, the per-test outcomes read from its declared
 * report, and what the parser refused (reports it would not read, outcomes it did not take).
 */
record TestRun(Map<String, TestStatus> results, int exitCode, boolean timedOut, String output, List<String> refused) {
    private static final Pattern SAFE_GLOB = Pattern.compile("^[A-Za-z0-9_./*?\\-\\[\\]]+$");

    /** Runs the task's test command after {@code setup} (shell lines, null for none) in the same shell, in {@code network}. */
    static TestRun execute(Sandbox s, Task task, String setup, SandboxNetwork network) {
        TestReportSpec report = task.testReport();
        String glob = report instanceof TestReportSpec.JunitXml j ? j.path() : null;
        if (glob != null) {
            if (!SAFE_GLOB.matcher(glob).matches() || glob.startsWith("/") || glob.contains("..")) {
                throw new IllegalArgumentException("test_report.path '" + glob + "' must be a relative glob of letters, digits and ./*?-_[]");
            }
            // Stale or planted reports (an agent could commit a passing TEST-*.xml) never count.
            s.exec("shopt -s globstar nullglob; rm -f -- " + glob, Duration.ofMinutes(1));
        }
        String command = network.wrap(setup == null ? task.testCommand() : setup + "\n" + task.testCommand());
        TestReportParser parser = parser(report);
        ExecResult r = s.exec(command, Duration.ofSeconds(task.limits().testTimeoutS()));
        String output = r.stdout() + "\n" + r.stderr();
        List<String> files = new ArrayList<>();
        List<String> names = new ArrayList<>();
        if (glob != null) {
            ExecResult list = s.exec("shopt -s globstar nullglob; for f in " + glob + "; do [ -f \"$f\" ] && printf '%s\\n' \"$f\"; done",
                    Duration.ofMinutes(1));
            for (String f : list.stdout().split("\n")) {
                if (!f.isBlank()) {
                    try {
                        files.add(s.readFile(f));
                        names.add(f);
                    } catch (SandboxFileException e) {
                        // unreadable report: its tests stay missing
                    }
                }
            }
        }
        var results = parser.parse(parser.log(r.stdout(), r.stderr()), files);
        return new TestRun(results, r.exitCode(), r.timedOut(), output, parser.refused(names));
    }

    private static TestReportParser parser(TestReportSpec report) {
        return switch (report) {
            case TestReportSpec.JunitXml j -> new JunitXmlParser();
            case TestReportSpec.Unittest u -> new UnittestParser();
            case TestReportSpec.Pytest p -> new PytestParser();
            case TestReportSpec.Log l -> switch (l.parser()) {
                case "maven" -> new MavenPerTestParser();
                case "cargo" -> new CargoTestParser();
                case "jest" -> new JsTestParsers.Jest();
                case "mocha" -> new JsTestParsers.Mocha();
                default -> {
                    var named = SweBenchLogParsers.named(l.parser());
                    named = named != null ? named : PolyBenchLogParsers.named(l.parser());
                    if (named == null) {
                        throw new IllegalArgumentException("test_report.parser '" + l.parser() + "' is not a log parser");
                    }
                    yield named;
                }
            };
        };
    }
}
