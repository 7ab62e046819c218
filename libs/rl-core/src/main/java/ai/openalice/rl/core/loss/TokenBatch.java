package ai.openalice.rl.core.loss;

import ai.openalice.rl.core.Checks;

/**
 * A batch of completion tokens, flattened: sequence s holds tokens {@code [offsets[s], offsets[s+1])}.
 * Arrays are shared, not copied (batches are large), and rl-core never writes to them.
 *
 * @param logprobs log π_θ(token) under the policy being trained
 * @param oldLogprobs log π_old(token): the trainer's policy at the version that sampled the rollout
 * @param rolloutLogprobs log-probs reported by the sampling engine, for truncated importance
 *     sampling; null when the engine and the trainer are the same computation
 * @param refLogprobs log π_ref(token) for the KL penalty; null when it is off
 * @param entropies per-token entropy of π_θ for the entropy bonus; null when it is off
 * @param advantages per-token advantages
 * @param mask true for tokens that count (completion tokens, not prompt or observation tokens)
 */
public record TokenBatch(
        int[] offsets, double[] logprobs, double[] oldLogprobs, double[] rolloutLogprobs, double[] refLogprobs,
        double[] entropies, double[] advantages, boolean[] mask) {

    public TokenBatch {
        if (offsets.length < 1 || offsets[0] != 0) {
            throw new IllegalArgumentException("offsets must start with 0");
        }
        for (int s = 1; s < offsets.length; s++) {
            if (offsets[s] < offsets[s - 1]) {
                throw new IllegalArgumentException("offsets must be non-decreasing; offsets[" + s + "]=" + offsets[s]);
            }
        }
        int n = offsets[offsets.length - 1];
        Checks.sameLength("logprobs", logprobs.length, "tokens (offsets)", n);
        Checks.sameLength("oldLogprobs", oldLogprobs.length, "tokens (offsets)", n);
        Checks.sameLength("advantages", advantages.length, "tokens (offsets)", n);
        Checks.sameLength("mask", mask.length, "tokens (offsets)", n);
        if (rolloutLogprobs != null) {
            Checks.sameLength("rolloutLogprobs", rolloutLogprobs.length, "tokens (offsets)", n);
        }
        if (refLogprobs != null) {
            Checks.sameLength("refLogprobs", refLogprobs.length, "tokens (offsets)", n);
        }
        if (entropies != null) {
            Checks.sameLength("entropies", entropies.length, "tokens (offsets)", n);
        }
    }

    public int tokens() {
        return logprobs.length;
    }

    public int sequences() {
        return offsets.length - 1;
    }
}
