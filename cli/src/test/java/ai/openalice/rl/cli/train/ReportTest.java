package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.events.EventCodec;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;

class ReportTest {
    private static JsonNode rec(long minute, long episodes, long hacks) throws Exception {
        return EventCodec.mapper().readTree("{\"t\":" + (minute * 60_000) + ",\"runnerEpisodes\":" + episodes + ",\"hackRollouts\":" + hacks + "}");
    }

    @Test
    void theHackRateIsTheShareOfEpisodesWithAnAttemptOverFiveMinutes() throws Exception {
        var metrics = new ArrayList<JsonNode>();
        metrics.add(rec(0, 0, 0));
        metrics.add(rec(5, 100, 2)); // 2 of the first 100 episodes tried
        metrics.add(rec(10, 200, 12)); // 10 of the next 100
        metrics.add(rec(11, 5, 1)); // the runner restarted: its counts began again
        metrics.add(rec(12, 25, 1));
        metrics.add(EventCodec.mapper().readTree("{\"t\":780000}")); // a record without the runner's counts (it did not answer)
        var s = Report.hackRate(metrics);
        assertEquals(3, s.points().size(), "no point where no episode ended in the window (the first record, the restart)");
        assertArrayEquals(new double[] {5, 2.0}, s.points().get(0), 1e-12, "2 of 100: 2 %");
        assertArrayEquals(new double[] {10, 10.0}, s.points().get(1), 1e-12, "10 of the 100 in the five minutes before minute 10");
        assertArrayEquals(new double[] {12, 0.0}, s.points().get(2), 1e-12, "after the restart: 0 of the 20 since it");
    }
}
