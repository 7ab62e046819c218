package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.EventCodec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The progress display: a block redrawn in place on a terminal, a line per update elsewhere, and the time left. */
class StatusViewTest {
    static StatusView.Snapshot at(long step, Double pass1) {
        return new StatusView.Snapshot("rl", step, step, 0.5, 0.25, 0.125, pass1, pass1 == null ? null : 0.05, 40, 0.001, "6 samples current",
                Duration.ofSeconds(3725), Duration.ofSeconds(59));
    }

    @Test
    void onATerminalTheBlockIsRedrawnInPlaceAndAMessageStaysAboveTheNextBlock() {
        var text = new StringWriter();
        var view = new StatusView(new PrintWriter(text), true);
        view.show(at(41, null));
        String first = text.toString();
        assertFalse(first.contains("\033[7F"), "nothing to overwrite the first time");
        assertEquals(7, first.split("\n").length);
        assertTrue(first.contains("[rl] step 41   policy v41   elapsed 1:02:05, remaining 0:00:59"), first);
        assertTrue(first.contains("rollouts/s        0.50 (30 a minute)"), first);

        view.show(at(42, 0.25));
        String second = text.toString().substring(first.length());
        assertTrue(second.startsWith("\033[7F\033[2K[rl] step 42"), "back 7 lines, each cleared: " + second.replace("\033", "ESC"));
        assertTrue(second.contains("held-out pass@1   0.250 ± 0.050 (v40)"), second);

        view.note("[rl] restarted trainer");
        int before = text.toString().length();
        view.show(at(43, 0.25));
        assertFalse(text.toString().substring(before).contains("\033[7F"), "the message is not overwritten");
    }

    @Test
    void elsewhereEachUpdateIsOneLineWithoutEscapes() {
        var text = new StringWriter();
        var view = new StatusView(new PrintWriter(text), false);
        view.show(at(41, null));
        view.show(at(42, 0.25));
        var lines = text.toString().split("\n");
        assertEquals(2, lines.length);
        assertEquals("[rl] step 42 | v42 | 0.50 rollouts/s | reward 0.250 | r_exec 0.125 | held-out pass@1 0.250 ± 0.050 (v40) | loss 0.001"
                + " | staleness 6 samples current | elapsed 1:02:05, remaining 0:00:59", lines[1]);
        assertFalse(text.toString().contains("\033"));
    }

    @Test
    void remainingIsTheDeadlineOrTheStepsLeftAtThePaceSoFarWhicheverComesFirst() {
        var now = Instant.parse("2026-12-01T10:00:00Z");
        // 10 steps in 100 s from step 0, 30 to go: 300 s
        assertEquals(Duration.ofSeconds(300), StatusView.remaining(now, null, 40, 0, 10, Duration.ofSeconds(100)));
        // a deadline 120 s away comes first
        assertEquals(Duration.ofSeconds(120), StatusView.remaining(now, now.plusSeconds(120), 40, 0, 10, Duration.ofSeconds(100)));
        // no step made yet, no deadline: unknown
        assertNull(StatusView.remaining(now, null, 40, 5, 5, Duration.ofSeconds(100)));
        assertEquals("0:00:00", StatusView.clock(Duration.ofSeconds(-3)));
        assertEquals("26:00:01", StatusView.clock(Duration.ofSeconds(26 * 3600 + 1)));
    }

    @Test
    void stalenessIsSaidInWords() {
        var m = new TreeMap<Long, Long>();
        m.put(0L, 4L);
        assertEquals("4 samples current", StatusView.staleness(m));
        m.put(1L, 1L);
        m.put(3L, 2L);
        assertEquals("4 samples current, 1 sample 1 version old, 2 samples 3 versions old", StatusView.staleness(m));
        assertEquals("8 samples 1 version old", Progress.staleness(EventCodec.mapper().createObjectNode().put("1", 8)));
    }

    @Test
    void theFinalEvaluationSaysHowFarItIs() {
        var s = new StatusView.EvalSnapshot(7, 4, 16, 2, 5, 1, 0.5, 3, Duration.ofSeconds(70), Duration.ofSeconds(120));
        assertEquals("[final-eval] v7 | 5 of 8 episodes scored, 1 failed (4 of 16 held-out tasks × 2) | pass@1 so far 0.500 over 3 tasks"
                + " | elapsed 0:01:10, remaining 0:02:00", StatusView.evalLine(s));
        assertEquals(List.of("[final-eval] policy v7   elapsed 0:01:10, remaining 0:02:00",
                "  episodes          5 of 8 episodes scored, 1 failed (4 of 16 held-out tasks × 2)", "  pass@1 so far     0.500 over 3 tasks"),
                StatusView.evalBlock(s));
    }
}
