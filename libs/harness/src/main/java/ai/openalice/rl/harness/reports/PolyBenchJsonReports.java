package ai.openalice.rl.harness.reports;

import ai.openalice.rl.harness.reports.PolyBenchLogParsers.Lists;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SWE-PolyBench's parsers of the JSON reports JavaScript and TypeScript test runners print (Mocha's
 * {@code --reporter json}, Jest's {@code --json}) and of TAP, rule for rule. A report starts at
 * {@code {"stats"} (Mocha) or {@code {"numFailedTestSuites"} (Jest) and ends at the last {@code }}
 * before their harness's closing line (here: before it or the log's end), or, for two of the Jest
 * parsers, at {@code "wasInterrupted":true|false}}. A report that does not parse, or that lacks a
 * field a parser reads, gives no tests at all, as there.
 */
final class PolyBenchJsonReports {
    /** Python's json.loads: NaN and Infinity read, nothing after the value. */
    private static final JsonMapper JSON = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
    private static final Pattern MOCHA_START = Pattern.compile("\\{\\s*\"stats\"", PolyBenchLogParsers.PY);
    private static final Pattern JEST_START = Pattern.compile("\\{\\s*\"numFailedTestSuites\"", PolyBenchLogParsers.PY);
    private static final Pattern JEST_END = Pattern.compile("\"wasInterrupted\":(true|false)}", PolyBenchLogParsers.PY);
    private static final Pattern JSON_COMMAND = Pattern.compile("(^>.*--reporter json)", PolyBenchLogParsers.PY | Pattern.MULTILINE);
    private static final Pattern TAP = Pattern.compile("^TAP\\sversion\\s\\d+", PolyBenchLogParsers.PY | Pattern.MULTILINE);
    private static final String CLOSING = "Container exited";

    /** How a Jest parser names a test: {@code fullName}, else {@code title} (JavascriptJestPR); {@code title}; {@code fullName}. */
    enum JestName { FULL_NAME_OR_TITLE, TITLE, FULL_NAME }

    private PolyBenchJsonReports() {}

    /** A report the parser cannot read through (a missing field): no tests, as their parsers' catch-all says. */
    private static final class Unreadable extends RuntimeException {
        Unreadable() {
            super(null, null, false, false);
        }
    }

    /**
     * JavascriptGenericParser: when the first npm script line ({@code > …--reporter json}) runs
     * mocha, Mocha's report; else, when a line starts {@code TAP version N}, the TAP lines
     * {@code ok …} (passed) and {@code not ok …} (failed), named by the rest of the line; else nothing.
     */
    static Lists javascriptGeneric(String log) {
        Matcher command = JSON_COMMAND.matcher(log);
        if (command.find() && command.group(1).contains("mocha")) {
            return mocha(log);
        }
        if (!TAP.matcher(log).find()) {
            return Lists.empty();
        }
        var passed = new ArrayList<String>();
        var failed = new ArrayList<String>();
        for (String line : log.split("\n", -1)) {
            if (line.startsWith("ok ")) {
                passed.add(line.substring(3));
            }
            if (line.startsWith("not ok ")) {
                failed.add(line.substring(7));
            }
        }
        return new Lists(passed, failed);
    }

    /** JavascriptMocha, TypescriptMocha: {@code passes[].fullTitle} passed, {@code failures[].fullTitle} failed. */
    static Lists mocha(String log) {
        JsonNode report = toClosing(log, MOCHA_START);
        try {
            return new Lists(titles(report, "passes"), titles(report, "failures"));
        } catch (Unreadable e) {
            return Lists.empty();
        }
    }

    /** TypescriptMochaFileName: {@code tests[]} by {@code status}, named {@code file->fullTitle}. */
    static Lists mochaWithFiles(String log) {
        JsonNode report = toClosing(log, MOCHA_START);
        var passed = new ArrayList<String>();
        var failed = new ArrayList<String>();
        try {
            for (JsonNode t : items(report, "tests")) {
                String name = str(field(t, "file")) + "->" + str(field(t, "fullTitle"));
                String status = str(field(t, "status"));
                if (status.equals("passed")) {
                    passed.add(name);
                } else if (status.equals("failed")) {
                    failed.add(name);
                }
            }
        } catch (Unreadable e) {
            return Lists.empty();
        }
        return new Lists(passed, failed);
    }

    /**
     * JavascriptJestPR ({@code endAtInterrupted}, {@link JestName#FULL_NAME_OR_TITLE}),
     * TypescriptJestTW (the same end, {@link JestName#TITLE}) and TypescriptJest (to the closing
     * line, {@link JestName#FULL_NAME}): {@code testResults[].assertionResults[]} by status, named
     * {@code suite name->test name}.
     */
    static Lists jest(String log, boolean endAtInterrupted, JestName naming) {
        JsonNode report = endAtInterrupted ? toInterrupted(log) : toClosing(log, JEST_START);
        var passed = new ArrayList<String>();
        var failed = new ArrayList<String>();
        try {
            for (JsonNode suite : items(report, "testResults")) {
                String file = str(field(suite, "name"));
                for (JsonNode a : items(suite, "assertionResults")) {
                    String test = switch (naming) {
                        case FULL_NAME_OR_TITLE -> str(a.has("fullName") ? a.get("fullName") : field(a, "title"));
                        case TITLE -> str(field(a, "title"));
                        case FULL_NAME -> str(field(a, "fullName"));
                    };
                    String status = str(field(a, "status"));
                    if (status.equals("passed")) {
                        passed.add(file + "->" + test);
                    } else if (status.equals("failed")) {
                        failed.add(file + "->" + test);
                    }
                }
            }
        } catch (Unreadable e) {
            return Lists.empty();
        }
        return new Lists(passed, failed);
    }

    /** From {@code start} to the last {@code }} before the closing line (or the log's end); null when there is none or it does not parse. */
    private static JsonNode toClosing(String log, Pattern start) {
        Matcher m = start.matcher(log);
        if (!m.find()) {
            return null;
        }
        int closing = log.indexOf(CLOSING, m.start());
        String part = log.substring(m.start(), closing == -1 ? log.length() : closing);
        int brace = part.lastIndexOf('}');
        return brace < 0 ? null : parse(part.substring(0, brace + 1));
    }

    /** From Jest's report start to the first {@code "wasInterrupted":…}} after it. */
    private static JsonNode toInterrupted(String log) {
        Matcher m = JEST_START.matcher(log);
        if (!m.find()) {
            return null;
        }
        Matcher end = JEST_END.matcher(log);
        return end.find(m.start()) ? parse(log.substring(m.start(), end.end())) : null;
    }

    private static JsonNode parse(String text) {
        try {
            return JSON.readTree(text);
        } catch (Exception | StackOverflowError e) {
            return null;
        }
    }

    private static List<String> titles(JsonNode report, String list) {
        var out = new ArrayList<String>();
        for (JsonNode t : items(report, list)) {
            out.add(str(field(t, "fullTitle")));
        }
        return out;
    }

    /** {@code node[name]} as Python reads it: a missing object or key is an error that empties the result. */
    private static JsonNode field(JsonNode node, String name) {
        if (node == null || !node.isObject() || !node.has(name)) {
            throw new Unreadable();
        }
        return node.get(name);
    }

    /**
     * What Python's {@code for x in node[name]} walks, as far as a parser can use it: an array's
     * items; an empty object or string gives none; any other value would give items the parser
     * cannot index (keys, characters) or none at all (a number), so the report is unreadable.
     */
    private static Iterable<JsonNode> items(JsonNode node, String name) {
        JsonNode v = field(node, name);
        if (v.isArray()) {
            return v;
        }
        if ((v.isObject() || v.isTextual()) && (v.isObject() ? v.isEmpty() : v.asText().isEmpty())) {
            return List.of();
        }
        throw new Unreadable();
    }

    /** Python's {@code f"{value}"} of a JSON value: text as it is, null as None, booleans as True/False. */
    private static String str(JsonNode v) {
        if (v.isNull()) {
            return "None";
        }
        if (v.isBoolean()) {
            return v.asBoolean() ? "True" : "False";
        }
        return v.isValueNode() ? v.asText() : v.toString();
    }
}
