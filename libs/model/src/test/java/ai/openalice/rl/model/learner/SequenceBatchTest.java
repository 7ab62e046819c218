package ai.openalice.rl.model.learner;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Turn;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SequenceBatchTest {
    static Turn turn(int i, List<Integer> prompt, List<Integer> completion, List<Double> logp) {
        return new Turn(i, prompt, completion, logp, 0, new Action("bash", null, null), "", 0, 0);
    }

    @Test
    void onlyCompletionTargetsCarryWeightAndRowsArePaddedToTheLongest() {
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        // a: prompt [1 2], completion [3 4], observation [5], completion [6] → tokens 1 2 3 4 5 6
        var sa = new Sample(a, List.of(turn(0, List.of(1, 2), List.of(3, 4), List.of(-0.1, -0.2)), turn(1, List.of(5), List.of(6), List.of(-0.3))), 0.5);
        // b: prompt [1], completion [7] → tokens 1 7
        var sb = new Sample(b, List.of(turn(0, List.of(1), List.of(7), List.of(-0.4))), -0.5);
        var built = SequenceBatch.of(List.of(sa, sb), 16, Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, 10);
        var x = built.batch();
        assertEquals(2, x.rows());
        assertEquals(5, x.width());
        assertArrayEquals(new long[] {1, 2, 3, 4, 5, 1, 0, 0, 0, 0}, x.inputs());
        assertArrayEquals(new long[] {2, 3, 4, 5, 6, 7, 0, 0, 0, 0}, x.targets());
        // targets 3, 4, 6 (row a) and 7 (row b) are completion tokens
        assertArrayEquals(new float[] {0, 1, 1, 0, 1, 1, 0, 0, 0, 0}, x.mask());
        assertArrayEquals(new float[] {0, -0.1f, -0.2f, 0, -0.3f, -0.4f, 0, 0, 0, 0}, x.rolloutLogp());
        assertArrayEquals(new float[] {0, 0.5f, 0.5f, 0, 0.5f, -0.5f, 0, 0, 0, 0}, x.advantages());
        // seq-mean-token-sum-norm: 1 / (B · L_max) = 1 / (2 · 10) on every valid token
        assertArrayEquals(new float[] {0, 0.05f, 0.05f, 0, 0.05f, 0.05f, 0, 0, 0, 0}, x.coef(), 1e-7f);
        assertEquals(4, x.completionTokens());
        // the other real targets: 2 and 5 (row a); row b's only target is a completion; padding is neither
        assertArrayEquals(new float[] {1, 0, 0, 1, 0, 0, 0, 0, 0, 0}, x.contextMask());
        assertEquals(2, x.contextTokens());
    }

    @Test
    void anEpisodeWhoseAgentRewroteItsHistoryIsOneRowPerContextWithTheEpisodesAdvantage() {
        UUID id = UUID.randomUUID();
        // context 1: prompt [1 2], completion [3]; observation [4], completion [5]
        // context 2 (the agent dropped its history): prompt [1 9] whole, completion [6]
        var turns = List.of(turn(0, List.of(1, 2), List.of(3), List.of(-0.1)), turn(1, List.of(4), List.of(5), List.of(-0.2)),
                new Turn(2, List.of(1, 9), List.of(6), List.of(-0.3), 0, null, "", 0, 0, true));
        var s = new Sample(id, turns, 0.5, new double[] {0.1, 0.2, 0.3});
        var segments = s.segments();
        assertEquals(2, segments.size());
        assertEquals(List.of(0, 1), segments.get(0).turns().stream().map(Turn::index).toList());
        assertEquals(List.of(2), segments.get(1).turns().stream().map(Turn::index).toList());
        assertArrayEquals(new double[] {0.1, 0.2}, segments.get(0).turnAdvantages());
        assertArrayEquals(new double[] {0.3}, segments.get(1).turnAdvantages());
        var x = SequenceBatch.of(List.of(s), 16, Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, 10).batch();
        assertEquals(2, x.rows());
        assertEquals(4, x.width());
        // row 1: tokens 1 2 3 4 5; row 2: tokens 1 9 6 — never 1 2 3 4 5 1 9 6, a context the model never saw
        assertArrayEquals(new long[] {1, 2, 3, 4, 1, 9, 0, 0}, x.inputs());
        assertArrayEquals(new long[] {2, 3, 4, 5, 9, 6, 0, 0}, x.targets());
        assertArrayEquals(new float[] {0, 1, 0, 1, 0, 1, 0, 0}, x.mask());
        assertArrayEquals(new float[] {0, 0.1f, 0, 0.2f, 0, 0.3f, 0, 0}, x.advantages());
        assertArrayEquals(new float[] {0, -0.1f, 0, -0.2f, 0, -0.3f, 0, 0}, x.rolloutLogp());
        assertEquals(List.of(id, id), x.rolloutIds());
        var one = new Sample(id, turns.subList(0, 2), 0.5);
        assertEquals(List.of(one), one.segments(), "an episode in one context is its own only segment");
    }

    @Test
    void seqMeanTokenMeanGivesEveryEpisodeTheSamePushWhateverItsLength() {
        // a short success (3 completion tokens, A = +1) and a long failure (6 completion tokens, A = -1)
        var success = new Sample(UUID.randomUUID(), List.of(turn(0, List.of(1), List.of(2, 3, 4), List.of(-1.0, -1.0, -1.0))), 1);
        var failure = new Sample(UUID.randomUUID(), List.of(turn(0, List.of(1), List.of(2, 3, 4), List.of(-1.0, -1.0, -1.0)),
                turn(1, List.of(5), List.of(6, 7, 8), List.of(-1.0, -1.0, -1.0))), -1);
        var mean = SequenceBatch.of(List.of(success, failure), 16, Aggregation.SEQ_MEAN_TOKEN_MEAN, 16).batch();
        // 1 / (B · n_s): 1/(2·3) on the success's tokens, 1/(2·6) on the failure's
        float s3 = 1f / 6, s6 = 1f / 12;
        assertArrayEquals(new float[] {s3, s3, s3, 0, 0, 0, 0, s6, s6, s6, 0, s6, s6, s6}, mean.coef(), 1e-7f);
        // at ratio 1 the surrogate is -A per token: Σ coef·(-A) = -3·(1/6) + 6·(1/12) = 0 — the pushes cancel
        assertEquals(0, weightedPush(mean), 1e-6);
        // seq-mean-token-sum-norm (L_max 16): 1/32 on every token, so the failure pushes twice as hard: -3/32 + 6/32
        var norm = SequenceBatch.of(List.of(success, failure), 16, Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, 16).batch();
        assertEquals(3.0 / 32, weightedPush(norm), 1e-6);
    }

    private static double weightedPush(SequenceBatch x) {
        double sum = 0;
        for (int i = 0; i < x.coef().length; i++) {
            sum += x.coef()[i] * -x.advantages()[i];
        }
        return sum;
    }

    @Test
    void supervisedBatchesLeaveOutTheCompletionsOfFailedCalls() {
        // prompt [1], completion [2 3] refused by the tool; observation [4], completion [5] that worked
        var failed = new Turn(0, List.of(1), List.of(2, 3), List.of(-1.0, -1.0), 0, new Action("file_editor", null, null, true), "no such file", 0, 0);
        var s = new Sample(UUID.randomUUID(), List.of(failed, turn(1, List.of(4), List.of(5), List.of(-1.0))), 1);
        var sft = SequenceBatch.of(List.of(s), 8, Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, 8, true).batch();
        assertArrayEquals(new long[] {2, 3, 4, 5}, sft.targets());
        assertArrayEquals(new float[] {0, 0, 0, 1}, sft.mask(), "only the call that worked is imitated");
        assertArrayEquals(new float[] {0, 0, 1, 0}, sft.contextMask(), "the mistake is not context either; the observation is");
        assertEquals(1, sft.completionTokens());
        var rl = SequenceBatch.of(List.of(s), 8, Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, 8).batch();
        assertArrayEquals(new float[] {1, 1, 0, 1}, rl.mask(), "RL weighs every completion by its advantage");
    }

    @Test
    void episodesLongerThanTheContextAreLeftOutWithTheReason() {
        var ok = new Sample(UUID.randomUUID(), List.of(turn(0, List.of(1, 2), List.of(3), List.of(-1.0))), 1);
        var tooLong = new Sample(UUID.randomUUID(), List.of(turn(0, List.of(1, 2, 3, 4), List.of(5, 6), List.of(-1.0, -1.0))), 1);
        var built = SequenceBatch.of(List.of(ok, tooLong), 4, Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, 4);
        assertEquals(1, built.batch().rows());
        assertEquals(1, built.rejected().size());
        assertEquals("longer than the model's context (6 > 5 tokens)", built.rejected().getFirst().reason());
        assertEquals(SequenceBatch.Why.TOO_LONG, built.rejected().getFirst().why());
    }

    @Test
    void perTurnAdvantagesWeighEachTurnsCompletionTokens() {
        // prompt [1], completion [2 3] (turn 0, A = 1.5); observation [4], completion [5] (turn 1, A = -0.5)
        var s = new Sample(UUID.randomUUID(), List.of(turn(0, List.of(1), List.of(2, 3), List.of(-1.0, -1.0)),
                turn(1, List.of(4), List.of(5), List.of(-1.0))), 9, new double[] {1.5, -0.5});
        var x = SequenceBatch.of(List.of(s), 8, Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, 8).batch();
        assertArrayEquals(new long[] {2, 3, 4, 5}, x.targets());
        assertArrayEquals(new float[] {1.5f, 1.5f, 0, -0.5f}, x.advantages());
    }
}
