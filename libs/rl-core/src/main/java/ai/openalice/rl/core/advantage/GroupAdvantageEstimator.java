package ai.openalice.rl.core.advantage;

import java.util.Arrays;

/**
 * Turns the rewards {@code R_i} of a group of G rollouts of one task into advantages.
 * Members with {@code valid[i] == false} (infra failures, compact-filtered) are excluded from the
 * baseline and get advantage 0. Inputs are never mutated.
 */
@FunctionalInterface
public interface GroupAdvantageEstimator {

    GroupAdvantages estimate(double[] rewards, boolean[] valid);

    /** Every member valid. */
    default GroupAdvantages estimate(double[] rewards) {
        boolean[] valid = new boolean[rewards.length];
        Arrays.fill(valid, true);
        return estimate(rewards, valid);
    }
}
