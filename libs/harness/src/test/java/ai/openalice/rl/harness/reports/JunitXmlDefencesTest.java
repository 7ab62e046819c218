package ai.openalice.rl.harness.reports;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.harness.reports.JunitXmlParser.Defence;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each of the JUnit XML parser's three defences stops on its own — so that none of them can
 * be removed unnoticed — and that a test reported twice keeps the worse outcome. Reports are
 * written by the code under test and read on the verifier's host.
 */
class JunitXmlDefencesTest {
    static final String CASE = "<testcase classname=\"pkg.T\" name=\"t\">";

    @TempDir
    static Path dir;

    static String xxe(Path file) {
        return "<?xml version=\"1.0\"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM \"" + file.toUri() + "\">]>\n<testsuite>" + CASE
                + "&x;</testcase></testsuite>";
    }

    static String bomb() {
        var b = new StringBuilder("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol0 \"lol\">");
        for (int i = 1; i <= 9; i++) {
            b.append("<!ENTITY lol").append(i).append(" \"").append(("&lol" + (i - 1) + ";").repeat(10)).append("\">");
        }
        return b.append("]>\n<testsuite>").append(CASE).append("<system-out>&lol9;</system-out></testcase></testsuite>").toString();
    }

    static final String ENTITY_ADDS_AN_ERROR = "<?xml version=\"1.0\"?>\n<!DOCTYPE r [<!ENTITY err \"<error message='e'/>\">]>\n"
            + "<testsuite>" + CASE + "&err;</testcase></testsuite>";

    static Map<String, TestStatus> parse(JunitXmlParser p, String xml) {
        return p.parse("", List.of(xml));
    }

    @Test
    void secureProcessingAloneRefusesExternalEntitiesAndEntityBombs() throws Exception {
        // the host file holds markup, so that reading it shows in the outcome
        Path secret = Files.writeString(dir.resolve("secret.txt"), "<skipped message=\"s3cr3t-on-the-host\"/>");
        var p = new JunitXmlParser(EnumSet.of(Defence.SECURE_PROCESSING));
        assertEquals(Map.of(), parse(p, xxe(secret)), "the report naming a host file is not read");
        assertTrue(p.refused(List.of("TEST-x.xml")).getFirst().startsWith("report TEST-x.xml not read"), p.refused(List.of()).toString());
        assertFalse(p.refused(List.of()).toString().contains("s3cr3t"));
        assertTrue(p.refused(List.of()).getFirst().startsWith("report #1 not read"), "unnamed, by its place: " + p.refused(List.of()));
        assertEquals(Map.of(), parse(p, bomb()), "a billion laughs stops at JAXP's entity expansion limit");

        var none = new JunitXmlParser(EnumSet.noneOf(Defence.class));
        assertEquals(Map.of("pkg.T#t", TestStatus.SKIPPED), parse(none, xxe(secret)), "without any defence the host file is read into the report");
    }

    @Test
    void noDoctypeAloneRefusesAnyDoctype() throws Exception {
        var p = new JunitXmlParser(EnumSet.of(Defence.NO_DOCTYPE));
        String harmless = "<?xml version=\"1.0\"?>\n<!DOCTYPE testsuite []>\n<testsuite>" + CASE + "</testcase></testsuite>";
        assertEquals(Map.of(), parse(p, harmless));
        assertTrue(p.refused(List.of("r.xml")).getFirst().contains("DOCTYPE"), p.refused(List.of("r.xml")).toString());
        assertEquals(Map.of(), parse(p, xxe(Files.writeString(dir.resolve("other.txt"), "other"))));
        assertEquals(Map.of(), parse(p, bomb()));
        assertEquals(Map.of("pkg.T#t", TestStatus.PASSED), parse(new JunitXmlParser(EnumSet.noneOf(Defence.class)), harmless),
                "without it a DOCTYPE is read");
    }

    @Test
    void noEntityExpansionAloneKeepsAnEntitysContentOutOfTheReport() {
        var p = new JunitXmlParser(EnumSet.of(Defence.NO_ENTITY_EXPANSION));
        assertEquals(Map.of("pkg.T#t", TestStatus.PASSED), parse(p, ENTITY_ADDS_AN_ERROR), "the <error/> inside the entity is not the test's");
        assertEquals(Map.of("pkg.T#t", TestStatus.ERROR), parse(new JunitXmlParser(EnumSet.noneOf(Defence.class)), ENTITY_ADDS_AN_ERROR),
                "expanded, it would be");
    }

    @Test
    void theProductionParserHasAllThree() throws Exception {
        var p = new JunitXmlParser();
        assertEquals(Map.of(), parse(p, xxe(Files.writeString(dir.resolve("third.txt"), "third"))));
        assertEquals(Map.of(), parse(p, bomb()));
        assertEquals(Map.of(), parse(p, ENTITY_ADDS_AN_ERROR));
    }

    @Test
    void aTestReportedTwiceKeepsTheWorseOutcomeAndSaysSo() {
        var p = new JunitXmlParser();
        String forged = "<testsuite>" + CASE + "</testcase></testsuite>";
        String real = "<testsuite>" + CASE + "<failure message=\"expected 5\"/></testcase></testsuite>";
        assertEquals(Map.of("pkg.T#t", TestStatus.FAILED), p.parse("", List.of(forged, real)), "a forged pass first");
        assertEquals(List.of("pkg.T#t reported passed and failed: kept failed"), p.refused(List.of("a", "b")));
        assertEquals(Map.of("pkg.T#t", TestStatus.FAILED), p.parse("", List.of(real, forged)), "or after");
        assertEquals(Map.of("pkg.T#t", TestStatus.PASSED), p.parse("", List.of(forged, forged)), "the same twice: nothing to say");
        assertEquals(List.of(), p.refused(List.of()), "a parse forgets the last one's refusals");
    }

    /** The order of outcomes, worst last: error, failed, missing, skipped, passed; either argument order. */
    @Test
    void worseRanksTheOutcomes() {
        List<TestStatus> order = List.of(TestStatus.PASSED, TestStatus.SKIPPED, TestStatus.MISSING, TestStatus.FAILED, TestStatus.ERROR);
        for (int i = 0; i < order.size(); i++) {
            for (int j = 0; j < order.size(); j++) {
                var expected = order.get(Math.max(i, j));
                assertEquals(expected, TestReportParser.worse(order.get(i), order.get(j)), order.get(i) + " vs " + order.get(j));
            }
        }
    }
}
