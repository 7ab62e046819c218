package ai.openalice.rl.harness.reports;

import ai.openalice.rl.events.TestStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The log parsers SWE-bench's harness reads its repositories' test output with (the official
 * package's {@code harness/log_parsers}), rewritten here rule for rule, quirks included, so that a
 * task's tests read as SWE-bench reads them: a status line or a word splits on whitespace, so a
 * parametrised id with a space in it ({@code test_paths[b c]}) is cut at the space as there; a later
 * line about the same test replaces the earlier one. SWE-bench's statuses map to alice-rl's:
 * {@code PASSED} and {@code XFAIL} (an expected failure) pass, {@code FAILED}, {@code ERROR} and
 * {@code SKIPPED} are themselves, and anything else a line ends with counts as failed.
 * {@code SweBenchLogParsersTest} checks each against the official parser on logs of real runs.
 */
public final class SweBenchLogParsers {
    /** SWE-bench's TestStatus values, in its order (a line starting with one of them is a status line). */
    private static final List<String> STATUSES = List.of("FAILED", "PASSED", "SKIPPED", "ERROR", "XFAIL");
    private static final Pattern SKIP_SUMMARY = Pattern.compile("^\\[\\d+\\]$");
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    private static final Pattern COLOUR = Pattern.compile("\\[(\\d+)m");
    private static final Pattern CONTROL = Pattern.compile("[\\x01-\\x1f]");

    private SweBenchLogParsers() {}

    /** The parser SWE-bench names by {@code name}; null when there is none. */
    public static TestReportParser named(String name) {
        return switch (name) {
            case "pytest-rA" -> new Pytest(false, false);
            case "matplotlib" -> new Pytest(true, false);
            case "pytest-options" -> new Pytest(false, true);
            case "pytest-v2" -> new PytestV2();
            case "pytest-v2-joined" -> new PytestV2Joined();
            case "pytest-pydantic" -> new PytestPydantic();
            case "django" -> new Django();
            case "seaborn" -> new Seaborn();
            case "sympy" -> new Sympy();
            case "go-test" -> new GoTest();
            default -> null;
        };
    }

    /**
     * alice-rl's parser of the same reading as SWE-bench's parser function {@code function} — a
     * name of its harness's parser registry ({@code parse_log_requests}, an alias of
     * {@code parse_log_pytest_options}) as a dataset row's {@code log_parser} or its spec table
     * names it; null when alice-rl has none. {@code maven}, {@code cargo} and {@code jest} read the
     * same logs as SWE-bench's but were not compared with it rule for rule.
     */
    public static String forFunction(String function) {
        if (function == null) {
            return null;
        }
        return switch (function) {
            case "parse_log_pytest", "parse_log_astroid", "parse_log_flask", "parse_log_marshmallow", "parse_log_pvlib", "parse_log_pyvista",
                    "parse_log_sqlfluff", "parse_log_xarray" -> "pytest-rA";
            case "parse_log_pytest_options", "parse_log_pydicom", "parse_log_requests", "parse_log_pylint" -> "pytest-options";
            case "parse_log_pytest_v2", "parse_log_astropy", "parse_log_scikit", "parse_log_sphinx" -> "pytest-v2";
            case "parse_log_pytest_pydantic", "parse_log_pydantic" -> "pytest-pydantic";
            case "parse_log_django" -> "django";
            case "parse_log_seaborn" -> "seaborn";
            case "parse_log_sympy" -> "sympy";
            case "parse_log_matplotlib" -> "matplotlib";
            case "parse_log_gotest" -> "go-test";
            case "parse_log_maven" -> "maven";
            case "parse_log_cargo" -> "cargo";
            case "parse_log_jest" -> "jest";
            default -> null;
        };
    }

    /** A status word of SWE-bench's logs as its grading counts it: PASSED and XFAIL pass, ERROR and SKIPPED as such, anything else fails. */
    public static TestStatus status(String swebench) {
        return switch (swebench) {
            case "PASSED", "XFAIL" -> TestStatus.PASSED;
            case "ERROR" -> TestStatus.ERROR;
            case "SKIPPED" -> TestStatus.SKIPPED;
            default -> TestStatus.FAILED;
        };
    }

    /** Python's {@code str.split()}: the words between runs of whitespace, none at either end. */
    static String[] words(String line) {
        String s = line.strip();
        return s.isEmpty() ? new String[0] : WHITESPACE.split(s);
    }

    /** A line without colour codes ({@code [31m}) and control characters, as {@code parse_log_pytest_v2} reads it. */
    private static String plain(String raw) {
        return CONTROL.matcher(COLOUR.matcher(raw).replaceAll("")).replaceAll("");
    }

    private static boolean startsWithStatus(String line) {
        return STATUSES.stream().anyMatch(line::startsWith);
    }

    private static boolean skipSummary(String status, String name) {
        return status.equals("SKIPPED") && SKIP_SUMMARY.matcher(name).matches();
    }

    /**
     * pytest -rA's summary lines ({@code STATUS id}, a failure's {@code " - "} message joined in), as
     * three of SWE-bench's parsers read them: {@code parse_log_pytest}; {@code parse_log_matplotlib},
     * the same after naming mouse buttons by number ({@code mouseButtons}); and
     * {@code parse_log_pytest_options}, the same with a parameter that is a path reduced to its last
     * part ({@code [/a/b.txt]} → {@code [/b.txt]}; {@code pathOptions}).
     */
    record Pytest(boolean mouseButtons, boolean pathOptions) implements TestReportParser {
        private static final Pattern OPTION = Pattern.compile("(.*?)\\[(.*)\\]");

        @Override
        public Map<String, TestStatus> parse(String output, List<String> files) {
            var out = new LinkedHashMap<String, TestStatus>();
            for (String line : output.split("\n", -1)) {
                if (mouseButtons) {
                    line = line.replace("MouseButton.LEFT", "1").replace("MouseButton.RIGHT", "3");
                }
                if (!startsWithStatus(line)) {
                    continue;
                }
                if (line.startsWith("FAILED")) {
                    line = line.replace(" - ", " ");
                }
                String[] w = words(line);
                if (w.length > 1 && !skipSummary(w[0], w[1])) {
                    out.put(pathOptions ? lastPathPart(w[1]) : w[1], status(w[0]));
                }
            }
            return out;
        }

        private static String lastPathPart(String name) {
            Matcher m = OPTION.matcher(name);
            if (!m.find()) {
                return name;
            }
            String option = m.group(2);
            if (option.startsWith("/") && !option.startsWith("//") && !option.contains("*")) {
                option = "/" + option.substring(option.lastIndexOf('/') + 1);
            }
            return m.group(1) + "[" + option + "]";
        }
    }

    /**
     * {@code parse_log_pytest_v2} (astropy, scikit-learn, sphinx) of swebench 4.1.0: colour codes and
     * control characters dropped, a status line keyed by its second word (a failure's {@code " - "}
     * joined in, a parameter with a space cut at it), a verbose line ending in a status keyed by its
     * first word with its second as the status. SWE-bench Verified's test lists were made by this
     * reading ({@code test_unparse[a} for {@code test_unparse[a + b-a + b]}: 159 listed ids of 15
     * sphinx, astropy and scikit-learn instances), and the published runs' verdicts came from it; 5.x
     * keys the whole id ({@link PytestV2Joined}), which those lists never name.
     */
    record PytestV2() implements TestReportParser {
        @Override
        public Map<String, TestStatus> parse(String output, List<String> files) {
            var out = new LinkedHashMap<String, TestStatus>();
            for (String raw : output.split("\n", -1)) {
                String line = plain(raw);
                if (startsWithStatus(line)) {
                    String[] w = words(line.startsWith("FAILED") ? line.replace(" - ", " ") : line);
                    if (w.length >= 2) {
                        out.put(w[1], status(w[0]));
                    }
                } else if (STATUSES.stream().anyMatch(line::endsWith)) {
                    String[] w = words(line);
                    if (w.length >= 2) {
                        out.put(w[0], status(w[1]));
                    }
                }
            }
            return out;
        }
    }

    /** {@code parse_log_pytest_v2} of swebench 5.x: as {@link PytestV2}, but a status line keyed by the whole id (a failure's message cut off) and a verbose line by all but its last word. */
    record PytestV2Joined() implements TestReportParser {
        @Override
        public Map<String, TestStatus> parse(String output, List<String> files) {
            var out = new LinkedHashMap<String, TestStatus>();
            for (String raw : output.split("\n", -1)) {
                String line = plain(raw);
                if (startsWithStatus(line)) {
                    if (line.startsWith("FAILED")) {
                        int dash = line.indexOf(" - ");
                        line = dash < 0 ? line : line.substring(0, dash);
                    }
                    String[] w = words(line);
                    if (w.length >= 2 && !skipSummary(w[0], w[1])) {
                        out.put(String.join(" ", List.of(w).subList(1, w.length)), status(w[0]));
                    }
                } else if (STATUSES.stream().anyMatch(line::endsWith)) {
                    String[] w = words(line);
                    if (w.length >= 2) {
                        out.put(String.join(" ", List.of(w).subList(0, w.length - 1)), status(w[w.length - 1]));
                    }
                }
            }
            return out;
        }
    }

    /**
     * SWE-Gym's {@code parse_log_pytest_pydantic} (its fork of SWE-bench, for pydantic): as
     * {@code parse_log_pytest_v2} once was — colour codes and control characters dropped, summary
     * lines keyed by their second word, verbose lines ending in a status keyed by their first word
     * with their second as status — and a {@code FAILED [ 50%]} progress mark cut to {@code FAILED}.
     * Its quirks are kept: pytest's {@code SKIPPED [1] path:line} summary keys {@code [1]}, and a
     * verbose line of a test id with a space takes the id's second half as its status (a later
     * summary line sets it again). A status line of one word, on which the fork's parser stops with
     * an error, is skipped.
     */
    record PytestPydantic() implements TestReportParser {
        private static final Pattern FAILED_PROGRESS = Pattern.compile("(?U)FAILED\\s*\\[.*?\\]");

        @Override
        public Map<String, TestStatus> parse(String output, List<String> files) {
            var out = new LinkedHashMap<String, TestStatus>();
            for (String raw : output.split("\n", -1)) {
                String line = plain(raw);
                line = FAILED_PROGRESS.matcher(line).replaceAll("FAILED");
                if (startsWithStatus(line)) {
                    String[] w = words(line.startsWith("FAILED") ? line.replace(" - ", " ") : line);
                    if (w.length > 1) {
                        out.put(w[1], status(w[0]));
                    }
                } else if (STATUSES.stream().anyMatch(line::endsWith)) {
                    String[] w = words(line);
                    if (w.length > 1) {
                        out.put(w[0], status(w[1]));
                    }
                }
            }
            return out;
        }
    }

    /** {@code parse_log_seaborn}: pytest's summary lines and verbose lines with the status second. */
    record Seaborn() implements TestReportParser {
        @Override
        public Map<String, TestStatus> parse(String output, List<String> files) {
            var out = new LinkedHashMap<String, TestStatus>();
            for (String line : output.split("\n", -1)) {
                String[] w = words(line);
                if (w.length < 2) {
                    continue;
                }
                if (line.startsWith("FAILED")) {
                    out.put(w[1], TestStatus.FAILED);
                } else if (line.contains(" PASSED ")) {
                    if (w[1].equals("PASSED")) {
                        out.put(w[0], TestStatus.PASSED);
                    }
                } else if (line.startsWith("PASSED")) {
                    out.put(w[1], TestStatus.PASSED);
                }
            }
            return out;
        }
    }

    /** {@code parse_log_django}: Django's runner at verbosity 2 ({@code name ... ok}, {@code FAIL: name}), output between a test and its verdict included. */
    record Django() implements TestReportParser {
        private static final String VERSION = "--version is equivalent to version";
        private static final List<String> PASS = List.of(" ... ok", " ... OK", " ...  OK");
        private static final int FLAGS = Pattern.MULTILINE | Pattern.UNIX_LINES;
        /** Django's own output cutting into a test's line before its "ok" (SWE-bench's three forms). */
        private static final List<Pattern> INTERRUPTED = List.of(
                Pattern.compile("^(.*?)\\s\\.\\.\\.\\sTesting against Django installed in ((?s:.*?)) silenced\\)\\.\\nok$", FLAGS),
                Pattern.compile("^(.*?)\\s\\.\\.\\.\\sInternal Server Error: /(.*)/\\nok$", FLAGS),
                Pattern.compile("^(.*?)\\s\\.\\.\\.\\sSystem check identified no issues \\(0 silenced\\)\\nok$", FLAGS));

        @Override
        public Map<String, TestStatus> parse(String output, List<String> files) {
            var out = new LinkedHashMap<String, TestStatus>();
            String previous = null;
            for (String raw : output.split("\n", -1)) {
                String line = raw.strip();
                if (line.contains(VERSION)) {
                    out.put(VERSION, TestStatus.PASSED);
                }
                if (line.contains(" ... ")) {
                    previous = line.substring(0, line.indexOf(" ... "));
                }
                for (String suffix : PASS) {
                    if (line.endsWith(suffix)) {
                        if (line.startsWith("Applying sites.0002_alter_domain_unique...test_no_migrations")) { // SWE-bench's fix for django-7188
                            line = line.substring(line.indexOf("...") + 3).strip();
                        }
                        out.put(line.substring(0, line.lastIndexOf(suffix)), TestStatus.PASSED);
                        break;
                    }
                }
                if (line.contains(" ... skipped")) {
                    out.put(line.substring(0, line.indexOf(" ... skipped")), TestStatus.SKIPPED);
                }
                if (line.endsWith(" ... FAIL")) {
                    out.put(line.substring(0, line.indexOf(" ... FAIL")), TestStatus.FAILED);
                }
                String[] w = words(line);
                if (line.startsWith("FAIL:") && w.length > 1) {
                    out.put(w[1], TestStatus.FAILED); // the method's name alone, as SWE-bench keys it
                }
                if (line.endsWith(" ... ERROR")) {
                    out.put(line.substring(0, line.indexOf(" ... ERROR")), TestStatus.ERROR);
                }
                if (line.startsWith("ERROR:") && w.length > 1) {
                    out.put(w[1], TestStatus.ERROR);
                }
                if (line.startsWith("ok") && previous != null) {
                    out.put(previous, TestStatus.PASSED);
                }
            }
            for (Pattern p : INTERRUPTED) {
                Matcher m = p.matcher(output);
                while (m.find()) {
                    out.put(m.group(1), TestStatus.PASSED);
                }
            }
            return out;
        }
    }

    /** {@code parse_log_sympy}: SymPy's runner ({@code bin/test --verbose}: {@code test_name ok}, {@code F}, {@code E}; failures' headers). */
    record Sympy() implements TestReportParser {
        private static final Pattern HEADER = Pattern.compile("(_*) (.*)\\.py:(.*) (_*)", Pattern.UNIX_LINES);

        @Override
        public Map<String, TestStatus> parse(String output, List<String> files) {
            var out = new LinkedHashMap<String, TestStatus>();
            Matcher m = HEADER.matcher(output);
            while (m.find()) {
                out.put(m.group(2) + ".py:" + m.group(3), TestStatus.FAILED);
            }
            for (String raw : output.split("\n", -1)) {
                String line = raw.strip();
                if (!line.startsWith("test_")) {
                    continue;
                }
                String first = words(line)[0];
                if (line.endsWith(" E")) {
                    out.put(first, TestStatus.ERROR);
                }
                if (line.endsWith(" F")) {
                    out.put(first, TestStatus.FAILED);
                }
                if (line.endsWith(" ok")) {
                    out.put(first, TestStatus.PASSED);
                }
            }
            return out;
        }
    }

    /** {@code parse_log_gotest}: {@code go test -v}'s {@code --- PASS/FAIL/SKIP: name (time)} lines, subtests included. */
    record GoTest() implements TestReportParser {
        private static final Pattern RESULT = Pattern.compile("--- (PASS|FAIL|SKIP): (.+) \\((.+)\\)");

        @Override
        public Map<String, TestStatus> parse(String output, List<String> files) {
            var out = new LinkedHashMap<String, TestStatus>();
            for (String line : output.split("\n", -1)) {
                Matcher m = RESULT.matcher(line.strip());
                if (m.matches()) {
                    out.put(m.group(2), switch (m.group(1)) {
                        case "PASS" -> TestStatus.PASSED;
                        case "FAIL" -> TestStatus.FAILED;
                        default -> TestStatus.SKIPPED;
                    });
                }
            }
            return out;
        }
    }
}
