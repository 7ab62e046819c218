package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class ProbeIntervalTest {
    @Test
    void tasksAreTheSamplingUnit() throws Exception {
        var tasks = new ObjectMapper().readTree("""
                [{"taskId": "a", "n": 2, "c": 1}, {"taskId": "b", "n": 2, "c": 0}, {"taskId": "c", "n": 2, "c": 1},
                 {"taskId": "d", "n": 2, "c": 2}, {"taskId": "e", "n": 0}]""");
        double[] ci = TaskInterval.of(tasks);
        // rates 0.5, 0, 0.5, 1 (e has no rollouts): mean 0.5; sample variance (0 + 0.25 + 0 + 0.25) / 3 = 1/6;
        // standard error sqrt(1/6 / 4) = 0.20412; half-width 1.96 × 0.20412 = 0.40008
        assertEquals(0.5, ci[0], 1e-12);
        assertEquals(0.40008, ci[1], 1e-5);
        assertNull(TaskInterval.of(new ObjectMapper().readTree("[{\"taskId\": \"a\", \"n\": 4, \"c\": 1}]")), "one task: no interval");
    }
}
