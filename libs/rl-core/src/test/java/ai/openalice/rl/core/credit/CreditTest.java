package ai.openalice.rl.core.credit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.openalice.rl.core.advantage.AdvantageEstimators;
import java.util.List;
import org.junit.jupiter.api.Test;

class CreditTest {
    private static final double TOL = 1e-12;

    private static List<GiGpo.Trajectory> group(boolean withMaskedThird) {
        var t1 = new GiGpo.Trajectory(1, new double[] {0, 0, 1}, new String[] {"s0", "sA", "sB"}, true);
        var t2 = new GiGpo.Trajectory(0, new double[] {0, 0}, new String[] {"s0", "sC"}, true);
        var t3 = new GiGpo.Trajectory(9, new double[] {9}, new String[] {"s0"}, false);
        return withMaskedThird ? List.of(t1, t2, t3) : List.of(t1, t2);
    }

    @Test
    void giGpoAddsStepAdvantagesWithinAnchorStates() {
        // A^E (drgrpo): mean 0.5 -> +0.5, -0.5. Returns with γ=1: T1 [1,1,1], T2 [0,0].
        // Only s0 is shared: returns 1 and 0, mean 0.5 -> A^S = +0.5 (T1,0), -0.5 (T2,0).
        var r = new GiGpo(AdvantageEstimators::drGrpo, 1.0, 1.0, false).compute(group(false));
        assertArrayEquals(new double[] {1.0, 0.5, 0.5}, r.turnAdvantages()[0], TOL);
        assertArrayEquals(new double[] {-1.0, -0.5}, r.turnAdvantages()[1], TOL);
        assertEquals(4, r.anchorGroups());
        assertEquals(1, r.anchorGroupsWithSiblings());
    }

    @Test
    void giGpoDiscountsAndWeightsStepAdvantagesAndIgnoresMaskedMembers() {
        // γ=0.5: T1 returns t2=1, t1=0.5, t0=0.25; T2 [0,0]. s0: 0.25 vs 0, mean 0.125 -> ±0.125, ω=2 -> ±0.25.
        // The masked third trajectory (also at s0, reward 9) takes part in neither level.
        var r = new GiGpo(AdvantageEstimators::drGrpo, 0.5, 2.0, false).compute(group(true));
        assertArrayEquals(new double[] {0.75, 0.5, 0.5}, r.turnAdvantages()[0], TOL);
        assertArrayEquals(new double[] {-0.75, -0.5}, r.turnAdvantages()[1], TOL);
        assertArrayEquals(new double[] {0}, r.turnAdvantages()[2], TOL);
    }

    @Test
    void giGpoStdNormalisesWithinTheAnchorGroup() {
        // s0 returns 1 and 0: sample std sqrt(0.5); A^S = ±0.5 / (sqrt(0.5) + 1e-6)
        var r = new GiGpo(AdvantageEstimators::drGrpo, 1.0, 1.0, true).compute(group(false));
        assertEquals(0.5 + 0.5 / (Math.sqrt(0.5) + 1e-6), r.turnAdvantages()[0][0], TOL);
    }

    @Test
    void discountedReturns() {
        // r = [1, 0, 2], γ = 0.5: R_2 = 2, R_1 = 0 + 0.5*2 = 1, R_0 = 1 + 0.5*1 = 1.5
        assertArrayEquals(new double[] {1.5, 1, 2}, DiscountedReturns.of(new double[] {1, 0, 2}, 0.5), TOL);
    }

    @Test
    void counterfactualCredits() {
        // R(τ) = 1; ablating turn 0 changes nothing, turn 1 breaks it, turn 2 half-breaks it.
        double[] ablated = {1, 0, 0.5};
        assertArrayEquals(new double[] {0, 1, 0.5}, CounterfactualCredit.credits(1, ablated), TOL);
        // additive: 0.4 + 0.5 * c
        assertArrayEquals(new double[] {0.4, 0.9, 0.65},
                CounterfactualCredit.advantages(0.4, 1, ablated, CounterfactualCredit.Mode.ADDITIVE, 0.5), TOL);
        // proportional: 0.4 * 3 * |c| / 1.5 = 0.8 |c|; total 1.2 = 3 * 0.4
        assertArrayEquals(new double[] {0, 0.8, 0.4},
                CounterfactualCredit.advantages(0.4, 1, ablated, CounterfactualCredit.Mode.PROPORTIONAL, 0), TOL);
        assertArrayEquals(new double[] {0.4, 0.4},
                CounterfactualCredit.advantages(0.4, 1, new double[] {1, 1}, CounterfactualCredit.Mode.PROPORTIONAL, 0), TOL);
    }

    @Test
    void turnGaeWithLambdaOneIsReturnMinusValue() {
        // δ2 = 1 - 0.8 = 0.2, δ1 = 0.8 - 0.6 = 0.2, δ0 = 0.6 - 0.5 = 0.1 ; A = [0.5, 0.4, 0.2]; G = [1, 1, 1]
        var r = TurnGae.compute(new double[] {0, 0, 1}, new double[] {0.5, 0.6, 0.8}, 0, 1, 1);
        assertArrayEquals(new double[] {0.5, 0.4, 0.2}, r.advantages(), TOL);
        assertArrayEquals(new double[] {1, 1, 1}, r.returns(), TOL);
    }

    @Test
    void turnGaeDiscounted() {
        // γ=0.9, λ=0.5: δ2 = 1 - 0.8 = 0.2 ; δ1 = 0.9*0.8 - 0.6 = 0.12 ; δ0 = 0.9*0.6 - 0.5 = 0.04
        // A2 = 0.2 ; A1 = 0.12 + 0.45*0.2 = 0.21 ; A0 = 0.04 + 0.45*0.21 = 0.1345
        var r = TurnGae.compute(new double[] {0, 0, 1}, new double[] {0.5, 0.6, 0.8}, 0, 0.9, 0.5);
        assertArrayEquals(new double[] {0.1345, 0.21, 0.2}, r.advantages(), 1e-12);
        assertArrayEquals(new double[] {0.6345, 0.81, 1.0}, r.returns(), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> TurnGae.compute(new double[1], new double[2], 0, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> TurnGae.compute(new double[1], new double[1], 0, 1.5, 1));
    }
}
