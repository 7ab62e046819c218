package ai.openalice.rl.harness.reports;

import ai.openalice.rl.events.TestStatus;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Reads JUnit XML reports (Maven Surefire, Gradle, {@code pytest --junitxml}): each
 * {@code <testcase classname="pkg.Class" name="method">} becomes {@code pkg.Class#method}.
 * {@code <failure>} → failed, {@code <error>} → error, {@code <skipped>} → skipped; Surefire's
 * {@code <flakyFailure>}/{@code <flakyError>} beside a pass count as passed (reported flaky by the
 * harness when it reruns). A report that is not well-formed XML, or that has a DOCTYPE, is not read
 * (its tests stay missing) and said in {@link #refused}: reports are written by code under test and
 * read on the verifier's host, so a DOCTYPE (external entities naming host files, entity bombs) is
 * refused three ways — the parser's secure processing (entity expansion limits), the DOCTYPE
 * declaration disallowed, entity references left unexpanded — each of which stops one of them. A
 * test reported twice keeps the worse outcome, also said: a forged passing report beside the
 * real failing one does not pass the test.
 */
public final class JunitXmlParser implements TestReportParser {
    /** The parser's defences against hostile reports; production uses all three (tests show what each stops on its own). */
    enum Defence {
        /** JAXP's secure processing: entity expansion limits, and no access to external DTDs or entities (file:, http:). */
        SECURE_PROCESSING,
        /** No DOCTYPE at all, so no entity of any kind is declared. */
        NO_DOCTYPE,
        /** Entity references left unexpanded: an entity's content never becomes the report's structure. */
        NO_ENTITY_EXPANSION
    }

    private final Set<Defence> defences;

    public JunitXmlParser() {
        this(EnumSet.allOf(Defence.class));
    }

    JunitXmlParser(Set<Defence> defences) {
        this.defences = Set.copyOf(defences);
    }

    /** What the last parse refused: a report (its index) or an outcome (-1). */
    private record Refusal(int file, String why) {}

    private final List<Refusal> refusals = new ArrayList<>();

    @Override
    public List<String> refused(List<String> names) {
        return refusals.stream().map(r -> r.file() < 0 ? r.why()
                : "report " + (r.file() < names.size() ? names.get(r.file()) : "#" + (r.file() + 1)) + " not read: " + r.why()).toList();
    }

    @Override
    public Map<String, TestStatus> parse(String output, List<String> files) {
        refusals.clear();
        var results = new LinkedHashMap<String, TestStatus>();
        for (int file = 0; file < files.size(); file++) {
            String xml = files.get(file);
            NodeList cases;
            try {
                var builder = factory().newDocumentBuilder();
                builder.setErrorHandler(new DefaultHandler()); // report by exception, not on stderr
                var doc = builder.parse(new InputSource(new StringReader(xml)));
                cases = doc.getElementsByTagName("testcase");
            } catch (Exception e) {
                refusals.add(new Refusal(file, firstLine(e.getMessage())));
                continue;
            }
            for (int i = 0; i < cases.getLength(); i++) {
                var tc = (Element) cases.item(i);
                String id = tc.getAttribute("classname") + "#" + tc.getAttribute("name");
                TestStatus status = TestStatus.PASSED;
                if (has(tc, "error")) {
                    status = TestStatus.ERROR;
                } else if (has(tc, "failure")) {
                    status = TestStatus.FAILED;
                } else if (has(tc, "skipped")) {
                    status = TestStatus.SKIPPED;
                }
                TestStatus before = results.get(id);
                if (before != null && before != status) {
                    refusals.add(new Refusal(-1, id + " reported " + before.wire() + " and " + status.wire() + ": kept "
                            + TestReportParser.worse(before, status).wire()));
                }
                results.merge(id, status, TestReportParser::worse);
            }
        }
        return results;
    }

    private DocumentBuilderFactory factory() throws ParserConfigurationException {
        var f = DocumentBuilderFactory.newInstance();
        if (defences.contains(Defence.SECURE_PROCESSING)) {
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
        }
        if (defences.contains(Defence.NO_DOCTYPE)) {
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        }
        if (defences.contains(Defence.NO_ENTITY_EXPANSION)) {
            f.setExpandEntityReferences(false);
        }
        return f;
    }

    private static String firstLine(String message) {
        String m = message == null ? "unreadable" : message.strip().lines().findFirst().orElse("unreadable");
        return m.length() > 200 ? m.substring(0, 200) + "…" : m;
    }

    private static boolean has(Element tc, String child) {
        NodeList kids = tc.getChildNodes();
        for (int i = 0; i < kids.getLength(); i++) {
            if (kids.item(i) instanceof Element e && e.getTagName().equals(child)) {
                return true;
            }
        }
        return false;
    }
}
