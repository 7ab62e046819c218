package ai.openalice.rl.core;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.openalice.rl.core.advantage.AdvantageEstimators;
import ai.openalice.rl.core.credit.CounterfactualCredit;
import ai.openalice.rl.core.credit.GiGpo;
import ai.openalice.rl.core.credit.TurnGae;
import ai.openalice.rl.core.eval.Selection;
import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.core.loss.KlEstimator;
import ai.openalice.rl.core.loss.PolicyLoss;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.core.loss.TokenBatch;
import ai.openalice.rl.core.reward.RewardComposition;
import ai.openalice.rl.core.staleness.Staleness;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Every input rl-core refuses, at the edge of what it takes, and the loss terms no whole-batch
 * test isolates (the unclipped gradient, the dual clip's cut, the entropy bonus). Expected values
 * by hand from the definitions in each class's documentation.
 */
class InputsAndEdgesTest {
    static final double NAN = Double.NaN;

    static void refused(String message, Executable e) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, e).getMessage());
    }

    @Test
    void theChecksTakeTheirBoundsAndNameWhatIsWrong() {
        assertDoesNotThrow(() -> Checks.inClosedRange("x", 0, 0, 1));
        assertDoesNotThrow(() -> Checks.inClosedRange("x", 1, 0, 1));
        refused("x must be in [0.0, 1.0], got 1.5", () -> Checks.inClosedRange("x", 1.5, 0, 1));
        refused("x must be in [0.0, 1.0], got NaN", () -> Checks.inClosedRange("x", NAN, 0, 1));
        refused("x must be > 0, got 0.0", () -> Checks.positive("x", 0));
        assertDoesNotThrow(() -> Checks.positive("x", Double.MIN_VALUE));
        refused("x must be finite, got Infinity", () -> Checks.finite("x", Double.POSITIVE_INFINITY));
        refused("x[1] must be finite, got NaN", () -> Checks.finite("x", new double[] {0, NAN}));
        refused("a has 1 entries but b has 2", () -> Checks.sameLength("a", 1, "b", 2));
    }

    @Test
    void creditAndGaeRefuseWhatTheyCannotUse() {
        refused("gamma must be in [0.0, 1.0], got 1.1", () -> TurnGae.compute(new double[] {1}, new double[] {0}, 0, 1.1, 1));
        refused("lambda must be in [0.0, 1.0], got -0.1", () -> TurnGae.compute(new double[] {1}, new double[] {0}, 0, 1, -0.1));
        refused("rewards[0] must be finite, got NaN", () -> TurnGae.compute(new double[] {NAN}, new double[] {0}, 0, 1, 1));
        refused("values[0] must be finite, got NaN", () -> TurnGae.compute(new double[] {1}, new double[] {NAN}, 0, 1, 1));
        refused("bootstrap must be finite, got NaN", () -> TurnGae.compute(new double[] {1}, new double[] {0}, NAN, 1, 1));
        refused("fullOutcome must be finite, got NaN", () -> CounterfactualCredit.credits(NAN, new double[] {0}));
        refused("ablatedOutcomes[0] must be finite, got NaN", () -> CounterfactualCredit.credits(1, new double[] {NAN}));
        refused("episodeAdvantage must be finite, got NaN",
                () -> CounterfactualCredit.advantages(NAN, 1, new double[] {0}, CounterfactualCredit.Mode.ADDITIVE, 1));
        var grpo = AdvantageEstimators.get("grpo");
        refused("gamma must be in [0.0, 1.0], got 2.0", () -> new GiGpo(grpo, 2, 1, true));
        refused("omega must be finite, got NaN", () -> new GiGpo(grpo, 1, NAN, true));
        refused("turnRewards has 2 entries but stateKeys has 1", () -> new GiGpo.Trajectory(1, new double[] {0, 0}, new String[] {"s"}, true));
    }

    @Test
    void rewardCompositionAtItsBounds() {
        assertEquals(0.9 + 0.1 * 1, RewardComposition.compose(1, 1, 0.9), 1e-12);
        assertEquals(0, RewardComposition.compose(0, 0, 0.9), 1e-12);
        refused("s_prm must be in [0, 1], got 1.01", () -> RewardComposition.compose(1, 1.01, 0.9));
        refused("gamma must be in (0.5, 1), got 0.5", () -> RewardComposition.compose(1, 0.5, 0.5));
        // a criterion scoring exactly 0 or 1, and a weight of 0, are taken
        assertEquals(0.25, RewardComposition.rubricScore(new double[] {0.25, 0.75, 0}, new double[] {1, 0, 1}), 1e-12);
        refused("weight w_0 must be >= 0, got -0.1", () -> RewardComposition.rubricScore(new double[] {-0.1, 1.1}, new double[] {1, 1}));
    }

    @Test
    void stalenessSelectionAndRegistryEdges() {
        var s = new Staleness(0);
        assertEquals(0, s.maxLag());
        assertEquals(new Staleness.Verdict.Fresh(0), s.check(3, 3), "a lag of 0 is within a bound of 0");
        assertEquals(new Staleness.Verdict.Stale(1, 0), s.check(2, 3));
        assertEquals(0, Staleness.lag(0, 0), "version 0 is a version");
        assertEquals(2, new Staleness(2).maxLag());
        refused("policy versions must be >= 0, got sample v-1, current v2", () -> Staleness.lag(-1, 2));

        var a = new Selection.Candidate("a", 1.0, 0.2, 10);
        var b = new Selection.Candidate("b", 0.0, 0.9, 10);
        assertEquals(a, Selection.bestHybrid(List.of(a, b), 1), "α = 1: execution alone");
        assertEquals(b, Selection.bestHybrid(List.of(a, b), 0), "α = 0: the execution-free score alone");
        // α = 0.5: a 0.6, b 0.45
        assertEquals(a, Selection.bestHybrid(List.of(b, a), 0.5));
        // equal hybrid scores (0.5 each): the execution-free score decides
        var execOnly = new Selection.Candidate("e", 1.0, 0.0, 1);
        var freeOnly = new Selection.Candidate("f", 0.0, 1.0, 99);
        assertEquals(freeOnly, Selection.bestHybrid(List.of(execOnly, freeOnly), 0.5));
        refused("no candidates to select from", () -> Selection.bestHybrid(List.of(), 0.5));
        refused("candidate n has a NaN score", () -> Selection.bestByExecution(List.of(a, new Selection.Candidate("n", NAN, 0, 1))));
        refused("candidate n has a NaN score", () -> Selection.bestHybrid(List.of(a, new Selection.Candidate("n", 0, NAN, 1)), 0.5));

        var r = new Registry<String>("estimator").register("x", "X");
        assertEquals("X", r.get("x"));
        refused("estimator 'x' is already registered", () -> r.register("x", "Y"));
        assertEquals(Set.of("x"), r.names());
    }

    static TokenBatch oneToken(double logRatio, double advantage, double[] entropies) {
        return new TokenBatch(new int[] {0, 1}, new double[] {logRatio - 1}, new double[] {-1}, null, null, entropies, new double[] {advantage},
                new boolean[] {true});
    }

    @Test
    void theBatchRefusesArraysOfAnotherLength() {
        int[] o = {0, 2};
        double[] two = {0, 0};
        double[] one = {0};
        boolean[] mask = {true, true};
        refused("offsets must start with 0", () -> new TokenBatch(new int[] {1, 2}, two, two, null, null, null, two, mask));
        refused("offsets must be non-decreasing; offsets[2]=1", () -> new TokenBatch(new int[] {0, 2, 1}, two, two, null, null, null, two, mask));
        refused("logprobs has 1 entries but tokens (offsets) has 2", () -> new TokenBatch(o, one, two, null, null, null, two, mask));
        refused("oldLogprobs has 1 entries but tokens (offsets) has 2", () -> new TokenBatch(o, two, one, null, null, null, two, mask));
        refused("advantages has 1 entries but tokens (offsets) has 2", () -> new TokenBatch(o, two, two, null, null, null, one, mask));
        refused("mask has 1 entries but tokens (offsets) has 2", () -> new TokenBatch(o, two, two, null, null, null, two, new boolean[] {true}));
        refused("rolloutLogprobs has 1 entries but tokens (offsets) has 2", () -> new TokenBatch(o, two, two, one, null, null, two, mask));
        refused("refLogprobs has 1 entries but tokens (offsets) has 2", () -> new TokenBatch(o, two, two, null, one, null, two, mask));
        refused("entropies has 1 entries but tokens (offsets) has 2", () -> new TokenBatch(o, two, two, null, null, one, two, mask));
        assertEquals(1, new TokenBatch(o, two, two, null, null, null, two, mask).sequences());
        assertEquals(2, new TokenBatch(new int[] {0, 0, 2}, two, two, null, null, null, two, mask).sequences(), "an empty sequence is one");
    }

    @Test
    void theLossConfigRefusesWhatTheLossCannotUse() {
        var ok = PolicyLossConfig.grpoPlusPlus(8);
        refused("epsLow must be in [0.0, 1.0], got 1.2", () -> new PolicyLossConfig(1.2, 0.28, NAN, Aggregation.TOKEN_MEAN, 8, 0, KlEstimator.K3, 0, 2));
        refused("epsHigh must be in [0.0, 1.7976931348623157E308], got -0.1",
                () -> new PolicyLossConfig(0.2, -0.1, NAN, Aggregation.TOKEN_MEAN, 8, 0, KlEstimator.K3, 0, 2));
        refused("dualClip must be > 1 (or NaN for off), got 1.0", () -> ok.withDualClip(1));
        assertDoesNotThrow(() -> ok.withDualClip(1.0001));
        refused("maxLength must be >= 1, got 0", () -> PolicyLossConfig.grpoPlusPlus(0));
        assertDoesNotThrow(() -> PolicyLossConfig.grpoPlusPlus(1));
        refused("klCoef must be finite, got NaN", () -> ok.withKl(NAN, KlEstimator.K1));
        refused("entropyCoef must be finite, got Infinity", () -> ok.withEntropyCoef(Double.POSITIVE_INFINITY));
        refused("tisCap must be > 0, got 0.0", () -> ok.withTisCap(0));
        assertEquals(Aggregation.TOKEN_MEAN, ok.withAggregation(Aggregation.TOKEN_MEAN).aggregation());
        assertEquals(0.5, ok.withEntropyCoef(0.5).entropyCoef());
        assertEquals(3.0, ok.withTisCap(3).tisCap());
        refused("entropyCoef is 0.5 but the batch has no entropies", () -> PolicyLoss.compute(oneToken(0, 1, null), ok.withEntropyCoef(0.5)));
    }

    /**
     * One token, token-mean aggregation (coefficient 1): ε = (0.2, 0.28), dual clip c = 3.
     * <ul>
     * <li>A = 1, ρ = 1: inside the clip range, loss −A·ρ = −1, gradient d(−A·ρ)/dlogp = −1, nothing clipped;
     * <li>A = −1, ρ = 2: −A·ρ = 2 ≥ the clipped 1.28, under the dual bound 3: loss 2, gradient 2;
     * <li>A = −1, ρ = 4: −A·ρ = 4 over the dual bound −A·c = 3: loss 3, no gradient, dual-clipped;
     * <li>entropy bonus 0.1 on entropy 2 at A = 1, ρ = 1: loss −1 − 0.2.
     * </ul>
     */
    @Test
    void theLossTermsTokenByToken() {
        var cfg = PolicyLossConfig.grpoPlusPlus(8).withAggregation(Aggregation.TOKEN_MEAN).withTisCap(Double.POSITIVE_INFINITY).withDualClip(3);
        var inside = PolicyLoss.compute(oneToken(0, 1, null), cfg);
        assertEquals(-1, inside.loss(), 1e-12);
        assertEquals(-1, inside.gradLogprobs()[0], 1e-12);
        assertEquals(0, inside.clipFraction(), 1e-12);
        var under = PolicyLoss.compute(oneToken(Math.log(2), -1, null), cfg);
        assertEquals(2, under.loss(), 1e-12);
        assertEquals(2, under.gradLogprobs()[0], 1e-12);
        assertEquals(0, under.dualClipFraction(), 1e-12);
        var cut = PolicyLoss.compute(oneToken(Math.log(4), -1, null), cfg);
        assertEquals(3, cut.loss(), 1e-12);
        assertEquals(0, cut.gradLogprobs()[0], 1e-12);
        assertEquals(1, cut.dualClipFraction(), 1e-12);
        var bonus = PolicyLoss.compute(oneToken(0, 1, new double[] {2}), cfg.withEntropyCoef(0.1));
        assertEquals(-1.2, bonus.loss(), 1e-12);
    }

    @Test
    void klEstimatorsByHand() {
        // d = logp − ref = 0.5
        assertEquals(0.5, KlEstimator.K1.value(0.5, 0), 1e-12);
        assertEquals(0.125, KlEstimator.K2.value(0.5, 0), 1e-12);
        assertEquals(Math.exp(-0.5) + 0.5 - 1, KlEstimator.K3.value(0.5, 0), 1e-12);
        assertEquals("token-mean", Aggregation.TOKEN_MEAN.wire());
    }
}
