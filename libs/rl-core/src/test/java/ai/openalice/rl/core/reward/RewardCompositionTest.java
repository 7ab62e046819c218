package ai.openalice.rl.core.reward;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class RewardCompositionTest {

    @Test
    void byHand() {
        // γ = 0.8: pass with s = 0.5 -> 0.8 + 0.2*0.5 = 0.9 ; fail with s = 0.5 -> 0.2*0.5 = 0.1
        assertEquals(0.9, RewardComposition.compose(1, 0.5, 0.8), 1e-12);
        assertEquals(0.1, RewardComposition.compose(0, 0.5, 0.8), 1e-12);
        assertEquals(0.8, RewardComposition.compose(1, 0, 0.8), 1e-12);
        assertEquals(0.2, RewardComposition.compose(0, 1, 0.8), 1e-12);
    }

    @Test
    void outOfRangeInputIsNamed() {
        assertEquals("gamma must be in (0.5, 1), got 0.5",
                assertThrows(IllegalArgumentException.class, () -> RewardComposition.compose(1, 0.5, 0.5)).getMessage());
        assertEquals("s_prm must be in [0, 1], got 1.2",
                assertThrows(IllegalArgumentException.class, () -> RewardComposition.compose(1, 1.2, 0.8)).getMessage());
        assertEquals("r_exec must be 0 or 1, got 2",
                assertThrows(IllegalArgumentException.class, () -> RewardComposition.compose(2, 0.5, 0.8)).getMessage());
        assertEquals("s_prm must be in [0, 1], got NaN",
                assertThrows(IllegalArgumentException.class, () -> RewardComposition.compose(0, Double.NaN, 0.8)).getMessage());
    }

    @Test
    void everyPassingRewardOutranksEveryFailingOne() {
        var rnd = new Random(5);
        for (int i = 0; i < 10_000; i++) {
            double gamma = 0.5 + 1e-9 + rnd.nextDouble() * (0.5 - 2e-9);
            double pass = RewardComposition.compose(1, rnd.nextDouble(), gamma);
            double fail = RewardComposition.compose(0, rnd.nextDouble(), gamma);
            assertTrue(pass > fail, "γ=" + gamma + " pass " + pass + " <= fail " + fail);
        }
        // Extremes: the worst pass (s=0) vs the best fail (s=1) at γ just above ½.
        assertTrue(RewardComposition.compose(1, 0, 0.5000001) > RewardComposition.compose(0, 1, 0.5000001));
    }

    @Test
    void rubricScoreIsTheWeightedSum() {
        // 0.5*1 + 0.3*0.5 + 0.2*0 = 0.65
        assertEquals(0.65, RewardComposition.rubricScore(new double[] {0.5, 0.3, 0.2}, new double[] {1, 0.5, 0}), 1e-12);
        assertEquals("rubric weights must sum to 1, got 0.9",
                assertThrows(IllegalArgumentException.class,
                        () -> RewardComposition.rubricScore(new double[] {0.5, 0.4}, new double[] {1, 1})).getMessage());
        assertEquals("criterion score q_1 must be in [0, 1], got -0.1",
                assertThrows(IllegalArgumentException.class,
                        () -> RewardComposition.rubricScore(new double[] {0.5, 0.5}, new double[] {1, -0.1})).getMessage());
    }
}
