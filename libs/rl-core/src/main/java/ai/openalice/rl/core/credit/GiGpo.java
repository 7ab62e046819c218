package ai.openalice.rl.core.credit;

import ai.openalice.rl.core.Checks;
import ai.openalice.rl.core.advantage.GroupAdvantageEstimator;
import ai.openalice.rl.core.advantage.GroupAdvantages;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * GiGPO (group-in-group policy optimisation): an episode advantage {@code A^E} from the group's
 * episode rewards, plus a step advantage {@code A^S} computed within anchor-state groups — the
 * turns, across the group's trajectories, whose state keys (e.g. observation hashes) are identical.
 * Each turn's step value is its discounted return {@code R_t = Σ_{k≥t} γ^{k−t} r_k};
 * {@code A^S = (R_t − mean_g) / F}, with {@code F = std_g} (unbiased, + 1e-6) when
 * {@code stdNormalise}, else 1; an anchor group of one turn gives {@code A^S = 0}. The turn's
 * advantage is {@code A = A^E + ω·A^S}. Masked trajectories take part in neither level and get 0.
 *
 * @param episodeEstimator how {@code A^E} is computed from episode rewards (e.g. {@code loo})
 * @param gamma discount of the step-level returns, in [0, 1]
 * @param omega weight of the step advantage
 * @param stdNormalise whether step advantages are divided by the anchor group's std
 */
public record GiGpo(GroupAdvantageEstimator episodeEstimator, double gamma, double omega, boolean stdNormalise) {

    public GiGpo {
        Checks.inClosedRange("gamma", gamma, 0, 1);
        Checks.finite("omega", omega);
    }

    /** One trajectory of the group: episode reward, per-turn rewards and per-turn state keys. */
    public record Trajectory(double episodeReward, double[] turnRewards, String[] stateKeys, boolean valid) {
        public Trajectory {
            Checks.sameLength("turnRewards", turnRewards.length, "stateKeys", stateKeys.length);
            turnRewards = turnRewards.clone();
            stateKeys = stateKeys.clone();
        }
    }

    /** Per-trajectory, per-turn advantages, with the episode-level part for inspection. */
    public record Result(double[][] turnAdvantages, GroupAdvantages episode, int anchorGroups, int anchorGroupsWithSiblings) {}

    public Result compute(List<Trajectory> group) {
        int g = group.size();
        double[] episodeRewards = new double[g];
        boolean[] valid = new boolean[g];
        for (int i = 0; i < g; i++) {
            episodeRewards[i] = group.get(i).episodeReward();
            valid[i] = group.get(i).valid();
        }
        GroupAdvantages episode = episodeEstimator.estimate(episodeRewards, valid);

        // Anchor-state groups: state key -> (trajectory, turn) pairs of valid trajectories.
        Map<String, List<int[]>> anchors = new HashMap<>();
        double[][] returns = new double[g][];
        for (int i = 0; i < g; i++) {
            Trajectory tr = group.get(i);
            returns[i] = DiscountedReturns.of(tr.turnRewards(), gamma);
            if (!tr.valid()) {
                continue;
            }
            for (int t = 0; t < tr.stateKeys().length; t++) {
                anchors.computeIfAbsent(tr.stateKeys()[t], k -> new ArrayList<>()).add(new int[] {i, t});
            }
        }

        double[][] out = new double[g][];
        for (int i = 0; i < g; i++) {
            out[i] = new double[group.get(i).turnRewards().length];
            if (valid[i]) {
                Arrays.fill(out[i], episode.advantage(i));
            }
        }
        int withSiblings = 0;
        for (List<int[]> members : anchors.values()) {
            if (members.size() < 2) {
                continue;
            }
            withSiblings++;
            double mean = 0;
            for (int[] m : members) {
                mean += returns[m[0]][m[1]];
            }
            mean /= members.size();
            double scale = 1;
            if (stdNormalise) {
                double sq = 0;
                for (int[] m : members) {
                    double d = returns[m[0]][m[1]] - mean;
                    sq += d * d;
                }
                scale = Math.sqrt(sq / (members.size() - 1)) + 1e-6;
            }
            for (int[] m : members) {
                out[m[0]][m[1]] += omega * (returns[m[0]][m[1]] - mean) / scale;
            }
        }
        return new Result(out, episode, anchors.size(), withSiblings);
    }
}
