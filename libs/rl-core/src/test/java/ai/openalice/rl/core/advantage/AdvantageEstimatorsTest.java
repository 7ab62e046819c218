package ai.openalice.rl.core.advantage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class AdvantageEstimatorsTest {
    private static final double TOL = 1e-12;

    @Test
    void drGrpoSubtractsTheMean() {
        // mean(1, 0, 0, 1) = 0.5
        assertArrayEquals(new double[] {0.5, -0.5, -0.5, 0.5}, AdvantageEstimators.get("drgrpo").estimate(new double[] {1, 0, 0, 1}).advantages(), TOL);
    }

    @Test
    void leaveOneOutUsesTheOtherMembersMean() {
        // A_0 = 1 - (0 + 0 + 1)/3 = 2/3 ; A_1 = 0 - (1 + 0 + 1)/3 = -2/3
        assertArrayEquals(new double[] {2.0 / 3, -2.0 / 3, -2.0 / 3, 2.0 / 3},
                AdvantageEstimators.get("loo").estimate(new double[] {1, 0, 0, 1}).advantages(), TOL);
    }

    @Test
    void grpoDividesByTheSampleStd() {
        // deviations ±0.5, sum of squares 1, sample variance 1/3, std sqrt(1/3)
        double a = 0.5 / (Math.sqrt(1.0 / 3) + 1e-6);
        assertArrayEquals(new double[] {a, -a, -a, a}, AdvantageEstimators.get("grpo").estimate(new double[] {1, 0, 0, 1}).advantages(), TOL);
    }

    @Test
    void maskedMembersLeaveTheBaselineAndGetZero() {
        // valid rewards 1, 0, 0.5 (the masked 5 must not count); n = 3
        // loo: 1 - (0 + 0.5)/2 = 0.75 ; 0 - (1 + 0.5)/2 = -0.75 ; 0.5 - (1 + 0)/2 = 0
        double[] r = {1, 0, 5, 0.5};
        boolean[] valid = {true, true, false, true};
        var loo = AdvantageEstimators.leaveOneOut(r, valid);
        assertArrayEquals(new double[] {0.75, -0.75, 0, 0}, loo.advantages(), TOL);
        assertEquals(3, loo.validCount());
        // drgrpo: mean 0.5 -> 0.5, -0.5, 0, 0
        assertArrayEquals(new double[] {0.5, -0.5, 0, 0}, AdvantageEstimators.drGrpo(r, valid).advantages(), TOL);
    }

    @Test
    void fewerThanTwoValidMembersGiveZerosAndSaySo() {
        var a = AdvantageEstimators.leaveOneOut(new double[] {1, 0, 1}, new boolean[] {false, true, false});
        assertArrayEquals(new double[3], a.advantages(), 0);
        assertTrue(a.degenerate());
        assertTrue(a.note().contains("1 valid member"), a.note());
        assertTrue(AdvantageEstimators.grpo(new double[0], new boolean[0]).degenerate());
    }

    @Test
    void allEqualRewardsGiveZeroAdvantagesWithoutDividingByZero() {
        assertArrayEquals(new double[] {0, 0, 0}, AdvantageEstimators.grpo(new double[] {1, 1, 1}, new boolean[] {true, true, true}).advantages(), 0);
    }

    @Test
    void badInputIsNamed() {
        var e = assertThrows(IllegalArgumentException.class, () -> AdvantageEstimators.get("loo").estimate(new double[] {1, Double.NaN}));
        assertEquals("rewards[1] must be finite, got NaN", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> AdvantageEstimators.get("ppo"));
        assertEquals("unknown advantage estimator 'ppo'; known: [grpo, drgrpo, loo]", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> AdvantageEstimators.drGrpo(new double[2], new boolean[3]));
        assertEquals("rewards has 2 entries but valid has 3", e.getMessage());
    }

    @Test
    void propertiesHoldOnRandomGroups() {
        var rnd = new Random(7);
        for (int trial = 0; trial < 2000; trial++) {
            int g = 1 + rnd.nextInt(16);
            double[] r = new double[g];
            boolean[] valid = new boolean[g];
            int n = 0;
            for (int i = 0; i < g; i++) {
                r[i] = rnd.nextBoolean() ? rnd.nextInt(2) : rnd.nextDouble();
                valid[i] = rnd.nextDouble() < 0.8;
                n += valid[i] ? 1 : 0;
            }
            double[] before = r.clone();
            boolean[] validBefore = valid.clone();
            var loo = AdvantageEstimators.leaveOneOut(r, valid);
            var dr = AdvantageEstimators.drGrpo(r, valid);
            assertArrayEquals(before, r, 0, "inputs are never mutated");
            assertArrayEquals(validBefore, valid);
            double sum = 0;
            for (int i = 0; i < g; i++) {
                sum += loo.advantage(i);
                if (!valid[i]) {
                    assertEquals(0, loo.advantage(i));
                } else if (n >= 2) {
                    // R_i - (S - R_i)/(n-1) = (n R_i - S)/(n-1) = n/(n-1) (R_i - mean)
                    assertEquals((double) n / (n - 1) * dr.advantage(i), loo.advantage(i), 1e-12);
                }
            }
            assertEquals(0, sum, 1e-9, "LOO advantages sum to 0 over valid members");
            assertFalse(n >= 2 && loo.degenerate());
        }
    }
}
