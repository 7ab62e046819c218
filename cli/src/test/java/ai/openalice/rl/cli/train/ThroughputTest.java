package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.events.EventCodec;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;

class ThroughputTest {
    @Test
    void burstsEveryOtherSampleReadAsTheirAverageOverTheWindow() {
        var t = new Throughput(60_000);
        // sampled every 5 s, three rollouts scored together every 10 s: between samples the rate is 0 or 0.6 a second
        double last = -1;
        for (long s = 0; s <= 180; s += 5) {
            last = t.observe(s * 1000, 3 * (s / 10));
            if (s >= 60) {
                // over any minute ending on a sample: 6 bursts of 3 = 18 rollouts in 60 s
                assertEquals(0.3, last, 1e-12, "at " + s + " s");
            }
        }
        assertEquals(0.3, last, 1e-12);
    }

    @Test
    void theReportPlotsTheMovingAverageFromTheScoredCountsInMinutes() throws Exception {
        var metrics = new ArrayList<JsonNode>();
        for (long s = 0; s <= 120; s += 5) {
            // an older run's records: an instantaneous rate that jumps between 0 and 0.6
            metrics.add(EventCodec.mapper().readTree("{\"t\":" + (5_000_000 + s * 1000) + ",\"rolloutsScored\":" + 3 * (s / 10)
                    + ",\"rolloutsPerSecond\":" + (s % 10 == 0 ? 0.6 : 0) + "}"));
        }
        var series = Report.throughput(metrics);
        assertEquals(25, series.points().size());
        assertArrayEquals(new double[] {2.0, 0.3}, series.points().getLast(), 1e-12, "two minutes in, 18 rollouts a minute");
        assertArrayEquals(new double[] {1.0, 0.3}, series.points().get(12), 1e-12);
        assertEquals(320, Report.draw(series).getHeight());
    }

    @Test
    void beforeAWindowHasPassedItIsTheRateSinceTheFirstSampleAndAFallingCountStartsAgain() {
        var t = new Throughput(60_000);
        assertEquals(0, t.observe(1_000, 100));
        assertEquals(10.0 / 20, t.observe(21_000, 110), 1e-12, "10 in 20 s");
        assertEquals(0, t.observe(26_000, 40), "the count fell (a pruned window): no negative rate, the average starts again");
        assertEquals(8.0 / 4, t.observe(30_000, 48), 1e-12, "8 in the 4 s since");
    }
}
