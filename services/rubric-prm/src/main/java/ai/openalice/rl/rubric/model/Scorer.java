package ai.openalice.rl.rubric.model;

import ai.openalice.rl.core.reward.RewardComposition;
import java.util.ArrayList;
import java.util.List;

/**
 * Scores an episode against a rubric — q_k per criterion, s_prm = Σ w_k·q_k — and composes the
 * reward with the execution result through rl-core: R = (1−γ)·s_prm if r_exec = 0, γ + (1−γ)·s_prm if
 * r_exec = 1, so every passing episode outranks every failing one. Deterministic for the same inputs.
 */
public final class Scorer {
    private Scorer() {}

    /** One criterion's weight, score and reason. */
    public record CriterionScore(String id, double weight, double q, String detail) {}

    /** The breakdown, s_prm, and the composed reward. */
    public record Result(List<CriterionScore> criteria, double sPrm, int rExec, double gamma, double reward) {}

    public static Result score(Rubric rubric, EpisodeFacts facts, Privileged privileged, boolean resolved, double gamma) {
        var scores = new ArrayList<CriterionScore>();
        double[] w = new double[rubric.criteria().size()];
        double[] q = new double[w.length];
        for (int k = 0; k < w.length; k++) {
            var c = rubric.criteria().get(k);
            Check.Score s = c.check().score(facts, privileged);
            w[k] = c.weight();
            q[k] = s.q();
            scores.add(new CriterionScore(c.id(), c.weight(), s.q(), s.detail()));
        }
        double sPrm = RewardComposition.rubricScore(w, q);
        int rExec = resolved ? 1 : 0;
        return new Result(scores, sPrm, rExec, gamma, RewardComposition.compose(rExec, sPrm, gamma));
    }
}
