package ai.openalice.rl.harness.reports;

import ai.openalice.rl.events.TestStatus;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.helpers.DefaultHandler;

/**
 * The log parsers of SWE-PolyBench's harness ({@code poly_bench_evaluation/parsers}, release
 * 9c836c5), rewritten here rule for rule, quirks included, so that a task's tests read as
 * SWE-PolyBench reads them. Each gives two lists, the passed and the failed test ids, as there; a
 * test in neither (skipped, errored in pytest, or not reported) is simply not reported. Their
 * harness hands a parser the test command's stderr, then its stdout, then a line
 * {@code Container exited with status code: N}: {@link #log} gives the same order, and where their
 * parsers cut a JSON report at that line, ours cut it there or at the end of the log, which is where
 * it stands in theirs. Regular expressions carry Python's meaning: {@code \w}, {@code \s} and
 * {@code \d} in Unicode, {@code .} stopping only at {@code \n}.
 * {@code PolyBenchLogParsersTest} checks each against SWE-PolyBench's own on logs of real runs.
 */
public final class PolyBenchLogParsers {
    /** Python's {@code re} defaults for a str pattern. */
    static final int PY = Pattern.UNICODE_CHARACTER_CLASS | Pattern.UNIX_LINES;

    /** SWE-PolyBench's parser class → alice-rl's name for it. */
    private static final Map<String, String> BY_CLASS = Map.of(
            "JavaGenericParser", "polybench-java",
            "PythonPyUnit", "polybench-python",
            "JavascriptGenericParser", "polybench-js",
            "JavascriptJestPR", "polybench-js-jest",
            "JavascriptMocha", "polybench-js-mocha",
            "TypescriptJest", "polybench-ts-jest",
            "TypescriptJestTW", "polybench-ts-jest-title",
            "TypescriptMocha", "polybench-ts-mocha",
            "TypescriptMochaFileName", "polybench-ts-mocha-file",
            "TypescriptBazelAngular", "polybench-bazel");

    private PolyBenchLogParsers() {}

    /** What one of SWE-PolyBench's parsers reads from a log: the passed and the failed ids, in order, repeats kept. */
    public record Lists(List<String> passed, List<String> failed) {
        static Lists empty() {
            return new Lists(List.of(), List.of());
        }
    }

    /** alice-rl's name for SWE-PolyBench's parser class {@code className}; null when it has none. */
    public static String forClass(String className) {
        return className == null ? null : BY_CLASS.get(className);
    }

    /** The parser alice-rl names {@code name}; null when there is none. */
    public static TestReportParser named(String name) {
        Function<String, Lists> reader = reader(name);
        return reader == null ? null : new Reader(reader);
    }

    /** What the parser named {@code name} reads from {@code log} (as their harness makes it). */
    public static Lists read(String name, String log) {
        Function<String, Lists> reader = reader(name);
        if (reader == null) {
            throw new IllegalArgumentException("no SWE-PolyBench parser is named '" + name + "'");
        }
        return reader.apply(log);
    }

    private static Function<String, Lists> reader(String name) {
        return name == null ? null : switch (name) {
            case "polybench-java" -> PolyBenchLogParsers::java;
            case "polybench-python" -> PolyBenchPython::read;
            case "polybench-js" -> PolyBenchJsonReports::javascriptGeneric;
            case "polybench-js-jest" -> log -> PolyBenchJsonReports.jest(log, true, PolyBenchJsonReports.JestName.FULL_NAME_OR_TITLE);
            case "polybench-ts-jest-title" -> log -> PolyBenchJsonReports.jest(log, true, PolyBenchJsonReports.JestName.TITLE);
            case "polybench-ts-jest" -> log -> PolyBenchJsonReports.jest(log, false, PolyBenchJsonReports.JestName.FULL_NAME);
            case "polybench-js-mocha", "polybench-ts-mocha" -> PolyBenchJsonReports::mocha;
            case "polybench-ts-mocha-file" -> PolyBenchJsonReports::mochaWithFiles;
            case "polybench-bazel" -> PolyBenchLogParsers::bazel;
            default -> null;
        };
    }

    /** A parser as the harness uses it: passed ids pass, failed ones fail; an id in both lists keeps the worse. */
    private record Reader(Function<String, Lists> reader) implements TestReportParser {
        @Override
        public Map<String, TestStatus> parse(String output, List<String> files) {
            Lists lists = reader.apply(output);
            var results = new LinkedHashMap<String, TestStatus>();
            lists.passed().forEach(id -> results.merge(id, TestStatus.PASSED, TestReportParser::worse));
            lists.failed().forEach(id -> results.merge(id, TestStatus.FAILED, TestReportParser::worse));
            return results;
        }

        @Override
        public String log(String stdout, String stderr) {
            return stderr + stdout;
        }
    }

    private static final Pattern READ_TRACE = Pattern.compile("\\+ read -r file\\s*", PY);
    private static final Pattern BUILD_FAILURE = Pattern.compile("build failure", PY | Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    private static final Pattern COMPILATION_ERROR = Pattern.compile("compilation error", PY | Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    private static final Pattern TEST_FAILURES = Pattern.compile("there are test failures", PY | Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    private static final Pattern SUITE = Pattern.compile("(<testsuite[^>]*>.*?</testsuite>)", PY | Pattern.DOTALL);

    /**
     * JavaGenericParser: the Surefire XML reports the test command prints. Maven's "build failure"
     * or "compilation error" without "there are test failures" means nothing ran: no tests. Each
     * {@code <testsuite>…</testsuite>} is read as XML (one that does not parse is skipped, as one
     * with a DOCTYPE is here); a test case with a failure or error child failed, one with skipped is
     * left out, any other passed, named {@code classname.name}. Quirk kept: their
     * {@code re.sub(..., re.DOTALL)} passes DOTALL as the count, so only the first 16 set -x lines
     * {@code + read -r file} are removed.
     */
    static Lists java(String log) {
        String text = removeFirst(READ_TRACE, log, 16);
        boolean buildFailed = BUILD_FAILURE.matcher(text).find() || COMPILATION_ERROR.matcher(text).find();
        if (buildFailed && !TEST_FAILURES.matcher(text).find()) {
            return Lists.empty();
        }
        var passed = new ArrayList<String>();
        var failed = new ArrayList<String>();
        Matcher m = SUITE.matcher(text);
        while (m.find()) {
            Element root = xml(m.group(1));
            if (root == null) {
                continue;
            }
            NodeList all = root.getElementsByTagNameNS("*", "*");
            for (int i = 0; i < all.getLength(); i++) {
                Element c = (Element) all.item(i);
                if (!plain(c, "testcase")) {
                    continue;
                }
                String name = (c.hasAttribute("classname") ? c.getAttribute("classname") + "." : "") + (c.hasAttribute("name") ? c.getAttribute("name") : "None");
                if (child(c, "failure") || child(c, "error")) {
                    failed.add(name);
                } else if (!child(c, "skipped")) {
                    passed.add(name);
                }
            }
        }
        return new Lists(passed, failed);
    }

    private static String removeFirst(Pattern p, String s, int count) {
        Matcher m = p.matcher(s);
        var out = new StringBuilder();
        int n = 0;
        while (n < count && m.find()) {
            m.appendReplacement(out, "");
            n++;
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The document element of {@code text}, null when it is not well-formed XML (a DTD is refused: the log is the agent's to write). */
    private static Element xml(String text) {
        try {
            var f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setExpandEntityReferences(false);
            var builder = f.newDocumentBuilder();
            builder.setErrorHandler(new DefaultHandler()); // fatal errors throw; nothing printed
            return builder.parse(new InputSource(new StringReader(text))).getDocumentElement();
        } catch (Exception | StackOverflowError e) {
            return null;
        }
    }

    /** ElementTree's tag {@code name}: no namespace. */
    private static boolean plain(Element e, String name) {
        return e.getNamespaceURI() == null && name.equals(e.getLocalName());
    }

    /** ElementTree's {@code find(name)}: a direct child. */
    private static boolean child(Element e, String name) {
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && plain(c, name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * TypescriptBazelAngular: every line holding PASSED or FAILED (four ANSI colour codes removed),
     * the id being what precedes the word, one of a leading {@code //} dropped. Quirk kept: which
     * list a line goes to is read from the line before the colour codes were removed.
     */
    static Lists bazel(String log) {
        var passed = new ArrayList<String>();
        var failed = new ArrayList<String>();
        for (String line : log.split("\n", -1)) {
            if (pyStrip(line).isEmpty()) {
                continue;
            }
            String clean = line.replace("\u001b[0m", "").replace("\u001b[32m", "").replace("\u001b[31m", "").replace("\u001b[1m", "");
            if (!clean.contains("PASSED") && !clean.contains("FAILED")) {
                continue;
            }
            String name = clean.substring(0, clean.indexOf(clean.contains("PASSED") ? "PASSED" : "FAILED"));
            if (name.startsWith("//")) {
                name = name.substring(1);
            }
            if (line.contains("PASSED")) {
                passed.add(pyStrip(name));
            } else if (line.contains("FAILED")) {
                failed.add(pyStrip(name));
            }
        }
        return new Lists(passed, failed);
    }

    /** Python's {@code str.strip()}: whitespace as {@code str.isspace} has it. */
    static String pyStrip(String s) {
        int b = 0;
        int e = s.length();
        while (b < e && pySpace(s.charAt(b))) {
            b++;
        }
        while (e > b && pySpace(s.charAt(e - 1))) {
            e--;
        }
        return s.substring(b, e);
    }

    private static boolean pySpace(char c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c) || c == '\u0085';
    }
}
