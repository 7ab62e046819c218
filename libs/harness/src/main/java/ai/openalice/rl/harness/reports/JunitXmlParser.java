package ai.openalice.rl.harness.reports;

import ai.openalice.rl.events.TestStatus;
import java.io.StringReader;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * Reads JUnit XML reports (Maven Surefire, Gradle, {@code pytest --junitxml}): each
 * {@code <testcase classname="pkg.Class" name="method">} becomes {@code pkg.Class#method}.
 * {@code <failure>} → failed, {@code <error>} → error, {@code <skipped>} → skipped; Surefire's
 * {@code <flakyFailure>}/{@code <flakyError>} beside a pass count as passed (reported flaky by the
 * harness when it reruns). A report that is not well-formed XML is ignored (its tests stay missing).
 * External entities are refused.
 */
public final class JunitXmlParser implements TestReportParser {

    @Override
    public Map<String, TestStatus> parse(String output, List<String> files) {
        var results = new LinkedHashMap<String, TestStatus>();
        for (String xml : files) {
            NodeList cases;
            try {
                var f = DocumentBuilderFactory.newInstance();
                f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
                f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
                f.setExpandEntityReferences(false);
                var builder = f.newDocumentBuilder();
                builder.setErrorHandler(new org.xml.sax.helpers.DefaultHandler()); // report by exception, not on stderr
                var doc = builder.parse(new InputSource(new StringReader(xml)));
                cases = doc.getElementsByTagName("testcase");
            } catch (Exception e) {
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
                results.merge(id, status, TestReportParser::worse);
            }
        }
        return results;
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
