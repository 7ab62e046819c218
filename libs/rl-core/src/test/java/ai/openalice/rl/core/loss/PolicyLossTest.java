package ai.openalice.rl.core.loss;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PolicyLossTest {
    private static final double TOL = 1e-12;
    private static final PolicyLossConfig TOKEN_MEAN = PolicyLossConfig.grpoPlusPlus(10).withAggregation(Aggregation.TOKEN_MEAN);

    /** One sequence; log-probs chosen so that ρ = exp(lp − old) takes the given values (old = 0). */
    private static TokenBatch batch(double[] ratios, double[] adv) {
        double[] lp = new double[ratios.length];
        for (int i = 0; i < ratios.length; i++) {
            lp[i] = Math.log(ratios[i]);
        }
        boolean[] mask = new boolean[ratios.length];
        Arrays.fill(mask, true);
        return new TokenBatch(new int[] {0, ratios.length}, lp, new double[ratios.length], null, null, null, adv, mask);
    }

    @Test
    void clipHighSurrogateByHand() {
        // ε_low 0.2, ε_high 0.28.
        // t0: A=+1, ρ=1.5  : -1.5 vs -1.28  -> clipped  -1.28, grad 0
        // t1: A=+1, ρ=1.1  : -1.1 vs -1.1   -> unclipped -1.1,  grad -A·ρ = -1.1
        // t2: A=-1, ρ=0.5  : 0.5 vs 0.8     -> clipped   0.8,   grad 0
        // t3: A=-1, ρ=1.5  : 1.5 vs 1.28    -> unclipped 1.5,   grad -A·ρ = 1.5
        // token-mean: loss = (-1.28 - 1.1 + 0.8 + 1.5)/4 = -0.02 ; grads / 4
        var r = PolicyLoss.compute(batch(new double[] {1.5, 1.1, 0.5, 1.5}, new double[] {1, 1, -1, -1}), TOKEN_MEAN);
        assertEquals(-0.02, r.loss(), TOL);
        assertArrayEquals(new double[] {0, -0.275, 0, 0.375}, r.gradLogprobs(), TOL);
        assertEquals(0.5, r.clipFraction(), TOL);
        double kl = (0.5 - Math.log(1.5)) * 2 + (0.1 - Math.log(1.1)) + (-0.5 - Math.log(0.5));
        assertEquals(kl / 4, r.approxKl(), TOL);
        assertEquals(4, r.validTokens());
    }

    @Test
    void dualClipBoundsNegativeAdvantageLoss() {
        // t0: A=-1, ρ=1.5: 1.5 < c=3 -> unchanged, grad 1.5 ; t1: A=-1, ρ=4: max(4, 1.28)=4 -> min(4, 3) = 3, grad 0
        var r = PolicyLoss.compute(batch(new double[] {1.5, 4}, new double[] {-1, -1}), TOKEN_MEAN.withDualClip(3));
        assertEquals((1.5 + 3) / 2, r.loss(), TOL);
        assertArrayEquals(new double[] {0.75, 0}, r.gradLogprobs(), TOL);
        assertEquals(0.5, r.dualClipFraction(), TOL);
        // Without dual clip the second token's loss is 4.
        assertEquals((1.5 + 4) / 2, PolicyLoss.compute(batch(new double[] {1.5, 4}, new double[] {-1, -1}), TOKEN_MEAN).loss(), TOL);
    }

    @Test
    void truncatedImportanceSamplingWeightsTheSurrogate() {
        // ρ = 1, A = 1: pg = -1, grad -1. w = min(π_old/π_rollout, 2): old−rollout = ln 3 -> 2 ; ln 0.5 -> 0.5
        double[] old = {Math.log(0.3), Math.log(0.2)};
        double[] rollout = {Math.log(0.1), Math.log(0.4)};
        var b = new TokenBatch(new int[] {0, 2}, old.clone(), old, rollout, null, null, new double[] {1, 1}, new boolean[] {true, true});
        var r = PolicyLoss.compute(b, TOKEN_MEAN);
        assertEquals((2 * -1 + 0.5 * -1) / 2, r.loss(), 1e-12);
        assertArrayEquals(new double[] {-1, -0.25}, r.gradLogprobs(), 1e-12);
        assertEquals(1.25, r.meanTisWeight(), 1e-12);
    }

    @Test
    void klPenaltyK3() {
        // lp = ln 0.5, ref = ln 0.25: d = ln 2 ; k3 = e^{-d} + d - 1 = 0.5 + ln 2 - 1 ; dk3/dlp = 1 - e^{-d} = 0.5
        var cfg = TOKEN_MEAN.withKl(0.1, KlEstimator.K3);
        var b = new TokenBatch(new int[] {0, 1}, new double[] {Math.log(0.5)}, new double[] {Math.log(0.5)}, null,
                new double[] {Math.log(0.25)}, null, new double[] {0}, new boolean[] {true});
        var r = PolicyLoss.compute(b, cfg);
        assertEquals(0.1 * (0.5 + Math.log(2) - 1), r.loss(), 1e-12);
        assertArrayEquals(new double[] {0.05}, r.gradLogprobs(), 1e-12);
        var noRef = new TokenBatch(new int[] {0, 1}, new double[1], new double[1], null, null, null, new double[1], new boolean[] {true});
        var e = assertThrows(IllegalArgumentException.class, () -> PolicyLoss.compute(noRef, cfg));
        assertEquals("klCoef is 0.1 but the batch has no refLogprobs", e.getMessage());
    }

    @Test
    void aggregationCoefficientsByHand() {
        // seq0: 3 valid + 1 masked ; seq1: 1 valid ; seq2: empty ; seq3: 2 masked. N = 4, B = 2, L_max = 10.
        int[] offsets = {0, 4, 5, 5, 7};
        boolean[] mask = {true, true, false, true, true, false, false};
        assertArrayEquals(new double[] {0.25, 0.25, 0, 0.25, 0.25, 0, 0}, Aggregation.TOKEN_MEAN.coefficients(offsets, mask, 10), TOL);
        assertArrayEquals(new double[] {0.5, 0.5, 0, 0.5, 0.5, 0, 0}, Aggregation.SEQ_MEAN_TOKEN_SUM.coefficients(offsets, mask, 10), TOL);
        assertArrayEquals(new double[] {1.0 / 6, 1.0 / 6, 0, 1.0 / 6, 0.5, 0, 0},
                Aggregation.SEQ_MEAN_TOKEN_MEAN.coefficients(offsets, mask, 10), TOL);
        assertArrayEquals(new double[] {0.05, 0.05, 0, 0.05, 0.05, 0, 0},
                Aggregation.byName("seq-mean-token-sum-norm").coefficients(offsets, mask, 10), TOL);
        assertArrayEquals(new double[7], Aggregation.TOKEN_MEAN.coefficients(offsets, new boolean[7], 10), 0);
    }

    @Test
    void gradientMatchesFiniteDifferencesAwayFromClipBoundaries() {
        var rnd = new Random(11);
        var cfg = PolicyLossConfig.grpoPlusPlus(64).withKl(0.05, KlEstimator.K3).withDualClip(3);
        int n = 200;
        double[] lp = new double[n], old = new double[n], rollout = new double[n], ref = new double[n], adv = new double[n];
        boolean[] mask = new boolean[n];
        for (int i = 0; i < n; i++) {
            old[i] = -rnd.nextDouble() * 3;
            lp[i] = old[i] + rnd.nextGaussian() * 0.3;
            rollout[i] = old[i] + rnd.nextGaussian() * 0.2;
            ref[i] = old[i] + rnd.nextGaussian() * 0.2;
            adv[i] = rnd.nextGaussian();
            mask[i] = rnd.nextDouble() < 0.9;
        }
        int[] offsets = {0, 50, 120, 200};
        var base = PolicyLoss.compute(new TokenBatch(offsets, lp, old, rollout, ref, null, adv, mask), cfg);
        double h = 1e-6;
        int checked = 0;
        for (int i = 0; i < n; i++) {
            double ratio = Math.exp(lp[i] - old[i]);
            boolean nearKink = Math.abs(ratio - 0.8) < 1e-3 || Math.abs(ratio - 1.28) < 1e-3
                    || (adv[i] < 0 && Math.abs(Math.max(ratio, 0.8) - 3) < 1e-3);
            if (nearKink) {
                continue;
            }
            double[] plus = lp.clone();
            plus[i] += h;
            double[] minus = lp.clone();
            minus[i] -= h;
            double lPlus = PolicyLoss.compute(new TokenBatch(offsets, plus, old, rollout, ref, null, adv, mask), cfg).loss();
            double lMinus = PolicyLoss.compute(new TokenBatch(offsets, minus, old, rollout, ref, null, adv, mask), cfg).loss();
            assertEquals((lPlus - lMinus) / (2 * h), base.gradLogprobs()[i], 1e-7, "token " + i);
            checked++;
        }
        assertTrue(checked > 150);
    }

    @Test
    void clippingNeverLetsTheObjectiveExceedTheClipBound() {
        // objective = −pg ; for A > 0 it is at most A·(1+ε_high), for A < 0 at most A·(1−ε_low).
        var rnd = new Random(3);
        for (int trial = 0; trial < 5000; trial++) {
            double ratio = Math.exp(rnd.nextGaussian() * 2);
            double a = rnd.nextGaussian();
            var r = PolicyLoss.compute(batch(new double[] {ratio}, new double[] {a}), TOKEN_MEAN);
            double objective = -r.loss();
            double bound = a > 0 ? a * 1.28 : a * 0.8;
            assertTrue(objective <= bound + 1e-12, "ρ=" + ratio + " A=" + a + " objective " + objective + " > " + bound);
            assertTrue(objective <= a * ratio + 1e-12, "the clipped objective never exceeds the unclipped one");
        }
    }

    @Test
    void inputsAreNeverMutated() {
        var b = batch(new double[] {1.5, 0.7}, new double[] {1, -1});
        double[] lp = b.logprobs().clone();
        double[] adv = b.advantages().clone();
        PolicyLoss.compute(b, TOKEN_MEAN);
        assertArrayEquals(lp, b.logprobs(), 0);
        assertArrayEquals(adv, b.advantages(), 0);
    }

    @Test
    void broadcastPerSequenceAndPerTurn() {
        assertArrayEquals(new double[] {0.5, 0.5, -1, 2, 2, 2}, AdvantageBroadcast.perSequence(new double[] {0.5, -1, 2}, new int[] {0, 2, 3, 6}), 0);
        assertArrayEquals(new double[] {1, 1, 1, 3}, AdvantageBroadcast.perTurn(new double[] {1, 2, 3}, new int[] {3, 0, 1}), 0);
    }
}
