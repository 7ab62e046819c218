package ai.openalice.rl.trainer.tinker;

import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.tinker.Datum;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One GRPO++ step as Tinker requests: a batch's rows as {@link Datum}s for the engine's
 * {@code ppo} loss, with what is ours computed here. The engine's loss per target position is
 * {@code −w·min(r·A′, clip(r, 1−ε_low, 1+ε_high)·A′)} with {@code r = exp(logp − logp_sampler)},
 * summed: any normalisation is the client's. rl-core's ({@code PolicyLoss}, no KL, no entropy, no
 * dual clip) is {@code Σ coef·w_TIS·max(−A·ρ, −A·clip(ρ))} with {@code ρ = exp(logp − logp_old)}.
 * Since {@code −min(x, y) = max(−x, −y)} and the factor is positive, the two are the same loss when
 * <ul>
 *   <li>the sampler log-probabilities sent are π_old's,</li>
 *   <li>{@code A′ = coef·w_TIS·A}: Dr. GRPO's constant {@code 1/(B·L_max)} ({@code coef}) and the TIS
 *       weight folded into the advantage — into the advantage rather than the weight, because an
 *       engine may read weights as a mask,</li>
 *   <li>the weights are the completion mask (0 on prompt and tool-output positions).</li>
 * </ul>
 * π_old is the sampling engine's own log-probabilities when nothing else is given
 * ({@code w_TIS = 1}); given the learner's log-probabilities at the start of the step (a
 * {@code forward} first, as the built-in learner's on-policy step has them from its own pass),
 * π_old is those and {@code w_TIS = min(exp(old − rollout), C)}, the built-in learner's objective
 * exactly.
 */
public final class TinkerBatch {
    private TinkerBatch() {}

    /** The ppo loss's thresholds for GRPO++'s clip-high bounds. */
    public static Map<String, Double> clip(PolicyLossConfig loss) {
        if (!Double.isNaN(loss.dualClip()) || loss.klCoef() != 0 || loss.entropyCoef() != 0) {
            throw new IllegalArgumentException("the Tinker learner's loss is ppo: no dual clip, KL or entropy term (got " + loss + ")");
        }
        return Map.of("clip_low_threshold", 1 - loss.epsLow(), "clip_high_threshold", 1 + loss.epsHigh());
    }

    /** The batch's rows without the learner's own log-probabilities: π_old is the sampler's, no TIS weight. */
    public static List<Datum> rows(SequenceBatch b) {
        return rows(b, null, Double.POSITIVE_INFINITY);
    }

    /**
     * The batch's rows; {@code old} (the learner's log-probabilities of every position, the batch's
     * layout) may be null. Each row is cut at its last real target (the batch pads rows to one width).
     */
    public static List<Datum> rows(SequenceBatch b, float[] old, double tisCap) {
        if (old != null && old.length != b.rows() * b.width()) {
            throw new IllegalArgumentException(old.length + " old log-probabilities for a batch of " + b.rows() + " x " + b.width());
        }
        List<Datum> rows = new ArrayList<>(b.rows());
        for (int r = 0; r < b.rows(); r++) {
            int from = r * b.width();
            int n = length(b, from);
            int[] inputs = new int[n];
            int[] targets = new int[n];
            float[] sampler = new float[n];
            float[] advantages = new float[n];
            float[] weights = Arrays.copyOfRange(b.mask(), from, from + n);
            for (int i = 0; i < n; i++) {
                inputs[i] = Math.toIntExact(b.inputs()[from + i]);
                targets[i] = Math.toIntExact(b.targets()[from + i]);
                if (weights[i] == 0) {
                    continue; // prompt or tool output: no loss, whatever the engine computes there
                }
                float rollout = b.rolloutLogp()[from + i];
                double tis = old == null ? 1 : Math.min(Math.exp(old[from + i] - rollout), tisCap);
                sampler[i] = old == null ? rollout : old[from + i];
                advantages[i] = (float) (b.coef()[from + i] * tis * b.advantages()[from + i]);
            }
            rows.add(new Datum(inputs, targets, sampler, advantages, weights));
        }
        return rows;
    }

    /** Positions up to the row's last real target (a completion or a context token). */
    private static int length(SequenceBatch b, int from) {
        for (int i = b.width() - 1; i >= 0; i--) {
            if (b.mask()[from + i] != 0 || b.contextMask()[from + i] != 0) {
                return i + 1;
            }
        }
        throw new IllegalArgumentException("row " + from / b.width() + " has no target");
    }
}
