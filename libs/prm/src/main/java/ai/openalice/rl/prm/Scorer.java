package ai.openalice.rl.prm;

import ai.openalice.rl.core.reward.RewardComposition;
import ai.openalice.rl.events.Termination;
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
        return score(rubric, facts, privileged, resolved, gamma, false);
    }

    /**
     * The same; with {@code submitRequired}, an episode that did not submit (it ran out of turns,
     * context or time) has r_exec = 0 even when its final diff passes the hidden tests: only a
     * submitted fix counts. Otherwise such an episode is rewarded as a submitted one, and compact
     * filtering, which hides it instead, leaves submitting as the only ending ever penalised.
     */
    public static Result score(Rubric rubric, EpisodeFacts facts, Privileged privileged, boolean resolved, double gamma, boolean submitRequired) {
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
        boolean counted = !submitRequired || facts.termination() == Termination.SUBMITTED;
        int rExec = resolved && counted ? 1 : 0;
        return new Result(scores, sPrm, rExec, gamma, RewardComposition.compose(rExec, sPrm, gamma));
    }
}
