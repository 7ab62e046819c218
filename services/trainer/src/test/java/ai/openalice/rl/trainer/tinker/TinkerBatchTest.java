package ai.openalice.rl.trainer.tinker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.learner.Sample;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.tinker.Datum;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A GRPO++ batch as Tinker rows, worked by hand. Two episodes, L_max 8, so Dr. GRPO's constant is
 * 1/(B·L_max) = 1/16: episode 1 (prompt 1 2, completion 3 4 at log-probabilities −1 and −2,
 * advantage +1) and episode 2 (prompt 1, completion 5 6 7 at −0.5 each, advantage −0.5).
 */
class TinkerBatchTest {
    static SequenceBatch batch() {
        return batch(new double[] {-1, -2}, new double[] {-0.5, -0.5, -0.5});
    }

    /** The same episodes with other sampling log-probabilities. */
    static SequenceBatch batch(double[] logp1, double[] logp2) {
        var e1 = new Sample(UUID.randomUUID(), List.of(turn(List.of(1, 2), List.of(3, 4), List.of(logp1[0], logp1[1]))), 1.0);
        var e2 = new Sample(UUID.randomUUID(), List.of(turn(List.of(1), List.of(5, 6, 7), List.of(logp2[0], logp2[1], logp2[2]))), -0.5);
        return SequenceBatch.of(List.of(e1, e2), 16, Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, 8).batch();
    }

    static Turn turn(List<Integer> prompt, List<Integer> completion, List<Double> logprobs) {
        return new Turn(0, prompt, completion, logprobs, 0, new Action("answer", null, null), "", 0, 0);
    }

    @Test
    void eachRowIsItsEpisodeWithTheConstantNormalisationInItsAdvantages() {
        List<Datum> rows = TinkerBatch.rows(batch());
        assertEquals(2, rows.size());
        Datum d1 = rows.get(0);
        assertArrayEquals(new int[] {1, 2, 3}, d1.inputTokens());
        assertArrayEquals(new int[] {2, 3, 4}, d1.targetTokens());
        assertArrayEquals(new float[] {0, 1, 1}, d1.weights(), "the prompt's token 2 carries no loss");
        assertArrayEquals(new float[] {0, -1, -2}, d1.samplerLogprobs());
        assertArrayEquals(new float[] {0, 1 / 16f, 1 / 16f}, d1.advantages());
        Datum d2 = rows.get(1);
        assertArrayEquals(new int[] {1, 5, 6}, d2.inputTokens());
        assertArrayEquals(new int[] {5, 6, 7}, d2.targetTokens());
        assertArrayEquals(new float[] {1, 1, 1}, d2.weights());
        assertArrayEquals(new float[] {-0.5f, -0.5f, -0.5f}, d2.samplerLogprobs());
        assertArrayEquals(new float[] {-1 / 32f, -1 / 32f, -1 / 32f}, d2.advantages());
    }

    @Test
    void givenTheLearnersOwnLogprobsTheyAreOldAndTheTisWeightJoinsTheAdvantage() {
        SequenceBatch b = batch();
        // old of episode 1's completion −1.2 and −1.5: TIS weights exp(−0.2) = 0.818731 and min(exp(0.5), 2) = 1.648721;
        // episode 2's −0.5 + ln 3 = 0.598612: exp(1.098612) = 3, capped at 2
        float[] old = {0, -1.2f, -1.5f, 0.598612f, -0.5f, -0.5f};
        List<Datum> rows = TinkerBatch.rows(b, old, 2.0);
        assertArrayEquals(new float[] {0, -1.2f, -1.5f}, rows.get(0).samplerLogprobs());
        assertArrayEquals(new float[] {0, 0.818731f / 16, 1.648721f / 16}, rows.get(0).advantages(), 1e-6f);
        assertArrayEquals(new float[] {-2 / 32f, -1 / 32f, -1 / 32f}, rows.get(1).advantages(), 1e-6f);
    }

    @Test
    void theClipThresholdsAreGrpoPlusPlussBoundsAndOtherTermsAreRefused() {
        Map<String, Double> clip = TinkerBatch.clip(PolicyLossConfig.grpoPlusPlus(8));
        assertEquals(2, clip.size());
        assertEquals(0.8, clip.get("clip_low_threshold"), 1e-12);
        assertEquals(1.28, clip.get("clip_high_threshold"), 1e-12);
        var e = assertThrows(IllegalArgumentException.class, () -> TinkerBatch.clip(PolicyLossConfig.grpoPlusPlus(8).withDualClip(3)));
        assertEquals(true, e.getMessage().contains("no dual clip"), e.getMessage());
    }
}
