package ai.openalice.rl.harness.reports;

import ai.openalice.rl.harness.reports.PolyBenchLogParsers.Lists;
import java.util.ArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SWE-PolyBench's PythonPyUnit, rule for rule: a log holding {@code = test session starts =} or
 * {@code = short test summary info =} is pytest's, any other unittest's. pytest: within the session
 * (from "collecting ..." or the session header to the warnings or short summary, or the summary
 * alone when there is no session), {@code path.py::Class::test STATUS} lines, else
 * {@code STATUS path.py::Class::test} ones; PASSED passes, FAILED fails (ERROR, SKIPPED, XFAIL,
 * XPASS are neither), named {@code path:Class:test} with {@code None} for no class. unittest:
 * {@code name (module.Class) ... status}, possibly lines later; {@code ok} passes, {@code FAIL}
 * fails (ERROR is neither), named {@code module.Class:name:parameters}.
 */
final class PolyBenchPython {
    private static final Pattern STANDARD = Pattern.compile(
            "([\\w/]+\\.py)::(?:([\\w]+)::)?([\\w_]+(?:\\[[\\w\\-\\d]+\\])?)(?:\\s<-\\s[\\w/]+\\.py)?(?:[\\s\\S]*?)(PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)",
            PolyBenchLogParsers.PY);
    private static final Pattern REVERSED = Pattern.compile(
            "(PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)\\s([\\w/]+\\.py)::(?:([\\w]+)::)?([\\w_]+(?:\\[[\\w\\-\\d]+\\])?)(?:\\s<-\\s[\\w/]+\\.py)?",
            PolyBenchLogParsers.PY);
    /**
     * Theirs, but for {@code (?:.*\n)*?} (lazily, whole lines) written {@code (?:[\s\S]*?\n)??}
     * (lazily, nothing or anything up to a newline): the same strings in the same order, without
     * Java's recursion per repeated group, which overflows the stack on long output.
     */
    private static final Pattern UNITTEST = Pattern.compile(
            "(?:(?:(\\w+) \\(([\\w.]+)\\)\\n.*\\n)?(\\w+)(?: \\(([\\w.]+)\\))?(?:\\((.+?)\\))? \\.{3} (?:[\\s\\S]*?\\n)??"
                    + "(ok|FAIL|ERROR|skipped|expected failure|unexpected success)"
                    + "|(FAIL|ERROR|skipped|expected failure|unexpected success): (\\w+)(?: \\(([\\w.]+)\\))?(?:\\((.+?)\\))?)",
            PolyBenchLogParsers.PY);

    private PolyBenchPython() {}

    static Lists read(String log) {
        return log.contains("= test session starts =") || log.contains("= short test summary info =") ? pytest(log) : unittest(log);
    }

    private static Lists pytest(String log) {
        String session = session(log);
        var passed = new ArrayList<String>();
        var failed = new ArrayList<String>();
        Matcher m = STANDARD.matcher(session);
        boolean any = false;
        while (m.find()) {
            any = true;
            add(passed, failed, m.group(4), none(m.group(1)) + ":" + none(m.group(2)) + ":" + none(m.group(3)));
        }
        if (!any) {
            m = REVERSED.matcher(session);
            while (m.find()) {
                add(passed, failed, m.group(1), none(m.group(2)) + ":" + none(m.group(3)) + ":" + none(m.group(4)));
            }
        }
        return new Lists(passed, failed);
    }

    private static void add(ArrayList<String> passed, ArrayList<String> failed, String status, String id) {
        if (status.equals("PASSED")) {
            passed.add(id);
        } else if (status.equals("FAILED")) {
            failed.add(id);
        }
    }

    private static String none(String group) {
        return group == null || group.isEmpty() ? "None" : group;
    }

    private static Lists unittest(String log) {
        var passed = new ArrayList<String>();
        var failed = new ArrayList<String>();
        Matcher m = UNITTEST.matcher(log);
        while (m.find()) {
            boolean multiline = nonEmpty(m.group(1)) && nonEmpty(m.group(2));
            String name = multiline ? m.group(1) : text(m.group(3));
            String classPath = multiline ? m.group(2) : text(m.group(4));
            String id = classPath + ":" + name + ":" + text(m.group(5));
            String status = text(m.group(6));
            if (status.equals("ok")) {
                passed.add(id);
            } else if (status.equals("FAIL")) {
                failed.add(id);
            }
        }
        return new Lists(passed, failed);
    }

    private static boolean nonEmpty(String s) {
        return s != null && !s.isEmpty();
    }

    private static String text(String group) {
        return group == null ? "" : group;
    }

    /** Their _extract_test_output: the part of the log the pytest patterns read. */
    private static String session(String out) {
        int testStart = out.indexOf("===== test session starts =====");
        int warnings = out.indexOf("===== warnings summary =====");
        int summary = out.indexOf("===== short test summary info =====");
        int collecting = out.indexOf("collecting ...");
        if (testStart == -1 && collecting == -1 && summary != -1) {
            return PolyBenchLogParsers.pyStrip(warnings > summary ? out.substring(summary, warnings) : out.substring(summary));
        }
        if (testStart == -1 && collecting == -1) {
            return "";
        }
        int start = testStart == -1 ? collecting : collecting == -1 ? testStart : Math.min(testStart, collecting);
        if (warnings == -1 && summary == -1) {
            return out.substring(start);
        }
        int end = warnings == -1 ? summary : summary == -1 ? warnings : Math.min(warnings, summary);
        return PolyBenchLogParsers.pyStrip(end <= start ? "" : out.substring(start, end)); // Python's slice: empty when the end comes first
    }
}
