package ai.openalice.rl.model.learner;

import ai.openalice.rl.core.loss.Aggregation;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Trajectories as next-token rows [B, T]: a row holds an episode's tokens (prompt deltas and
 * completions, turn after turn; an episode whose agent rewrote its history gets a row per
 * {@link Sample#segments() segment}) as inputs and the same shifted by one as targets. Only positions
 * whose target is a completion token carry weight — prompt and observation tokens are masked —
 * with the sampling log-prob of that token, the sequence's advantage, and the aggregation's
 * coefficient. {@code contextMask} marks the other real targets (prompt and observation tokens),
 * which supervised steps may also learn to predict.
 */
public record SequenceBatch(int rows, int width, long[] inputs, long[] targets, float[] rolloutLogp, float[] advantages, float[] coef,
        float[] mask, int completionTokens, float[] contextMask, int contextTokens, List<UUID> rolloutIds) {

    /** A trajectory that could not be batched, and why. */
    public record Rejected(UUID rolloutId, Why why, String reason) {}

    /** Why a sample was left out, as the trainer's drop counters name it. */
    public enum Why {
        /** Longer than the model's context. */
        TOO_LONG("too_long"),
        /** No token the loss would weigh (no completion, or in SFT no call that worked). */
        NOTHING_TO_LEARN("nothing_to_learn");

        private final String counter;

        Why(String counter) { this.counter = counter; }

        /** The name in the trainer's drop counters and metrics. */
        public String counter() { return counter; }
    }

    /** The batch and what was left out. */
    public record Built(SequenceBatch batch, List<Rejected> rejected) {}

    /**
     * @param contextLength the model's context: longer episodes are left out (the policy never saw them whole)
     * @param maxLength     L_max of the aggregation (seq-mean-token-sum-norm divides by it)
     */
    public static Built of(List<Sample> samples, int contextLength, Aggregation aggregation, int maxLength) {
        return of(samples, contextLength, aggregation, maxLength, false);
    }

    /**
     * With {@code skipFailedCalls} (supervised steps), the completion of a turn whose call failed
     * (unparsable, or refused by the tool) carries no weight at all: the demonstration's recovery
     * from it is learnt, the mistake is not.
     */
    public static Built of(List<Sample> samples, int contextLength, Aggregation aggregation, int maxLength, boolean skipFailedCalls) {
        var kept = new ArrayList<Sample>();
        var rejected = new ArrayList<Rejected>();
        int width = 1;
        for (Sample s : samples.stream().flatMap(x -> x.segments().stream()).toList()) {
            int len = s.length();
            if (len < 2 || s.turns().stream().allMatch(t -> t.completionTokenIds().isEmpty())) {
                rejected.add(new Rejected(s.rolloutId(), Why.NOTHING_TO_LEARN, "no completion tokens"));
            } else if (skipFailedCalls && s.turns().stream().allMatch(t -> t.completionTokenIds().isEmpty() || (t.action() != null && t.action().failed()))) {
                rejected.add(new Rejected(s.rolloutId(), Why.NOTHING_TO_LEARN, "no call that worked, nothing to imitate"));
            } else if (len > contextLength + 1) {
                rejected.add(new Rejected(s.rolloutId(), Why.TOO_LONG, "longer than the model's context (" + len + " > " + (contextLength + 1) + " tokens)"));
            } else {
                kept.add(s);
                width = Math.max(width, len - 1);
            }
        }
        int b = kept.size();
        long[] in = new long[b * width];
        long[] tg = new long[b * width];
        float[] lp = new float[b * width];
        float[] adv = new float[b * width];
        float[] mask = new float[b * width];
        float[] contextMask = new float[b * width];
        int context = 0;
        boolean[] valid = new boolean[b * width];
        int[] offsets = new int[b + 1];
        int completion = 0;
        var ids = new ArrayList<UUID>();
        for (int r = 0; r < b; r++) {
            Sample s = kept.get(r);
            ids.add(s.rolloutId());
            var seq = new ArrayList<Integer>();
            var isCompletion = new ArrayList<Boolean>();
            var skipped = new ArrayList<Boolean>();
            var logp = new ArrayList<Double>();
            var advantage = new ArrayList<Double>();
            for (int ti = 0; ti < s.turns().size(); ti++) {
                var t = s.turns().get(ti);
                boolean skip = skipFailedCalls && t.action() != null && t.action().failed();
                for (int id : t.promptDeltaTokenIds()) {
                    seq.add(id);
                    isCompletion.add(false);
                    skipped.add(false);
                    logp.add(0.0);
                    advantage.add(0.0);
                }
                for (int i = 0; i < t.completionTokenIds().size(); i++) {
                    seq.add(t.completionTokenIds().get(i));
                    isCompletion.add(true);
                    skipped.add(skip);
                    logp.add(t.logprobs().get(i));
                    advantage.add(s.advantageOf(ti));
                }
            }
            int base = r * width;
            offsets[r] = base;
            for (int i = 0; i + 1 < seq.size(); i++) {
                in[base + i] = seq.get(i);
                tg[base + i] = seq.get(i + 1);
                if (skipped.get(i + 1)) {
                    continue;
                }
                if (isCompletion.get(i + 1)) {
                    mask[base + i] = 1;
                    valid[base + i] = true;
                    lp[base + i] = logp.get(i + 1).floatValue();
                    adv[base + i] = advantage.get(i + 1).floatValue();
                    completion++;
                } else {
                    contextMask[base + i] = 1;
                    context++;
                }
            }
        }
        offsets[b] = b * width;
        double[] w = aggregation.coefficients(offsets, valid, maxLength);
        float[] coef = new float[w.length];
        for (int i = 0; i < w.length; i++) {
            coef[i] = (float) w[i];
        }
        return new Built(new SequenceBatch(b, width, in, tg, lp, adv, coef, mask, completion, contextMask, context, List.copyOf(ids)), List.copyOf(rejected));
    }
}
