package ai.openalice.rl.agent.loop;

import ai.openalice.rl.agent.format.ToolCallFormat;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.policy.Completion;
import java.util.List;

/**
 * Test-time scaling by step-level selection: sample M candidate next turns, weigh each by
 * q_t(a) ∝ π_θ(a)·exp(β·u_t(a)) — π_θ(a) the completion's probability, u_t(a) ∈ [0, 1] a step
 * utility (the rubric PRM's) — and execute the best. A sequential episode executes one candidate
 * per turn (B = 1). Off by default (training samples one completion per turn).
 *
 * @param candidates M, how many completions are sampled per turn
 * @param beta β, how strongly the utility reweighs the policy
 */
public record TestTimeSelection(int candidates, double beta, StepScorer scorer) {

    public TestTimeSelection {
        if (candidates < 2) {
            throw new IllegalArgumentException("test-time selection needs at least 2 candidates, got " + candidates);
        }
    }

    /** u_t(a) for each candidate, given the episode so far. */
    @FunctionalInterface
    public interface StepScorer {
        List<Double> utilities(Trajectory soFar, List<ToolCallFormat.Parsed> candidates);
    }

    /** The index of the candidate with the largest log π(a) + β·u(a) (the first on ties). */
    int choose(Trajectory soFar, List<Completion> completions, List<ToolCallFormat.Parsed> parsed) {
        List<Double> u = scorer.utilities(soFar, parsed);
        int best = 0;
        double bestScore = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < completions.size(); i++) {
            double logPi = 0;
            for (double lp : completions.get(i).logprobs()) {
                logPi += lp;
            }
            double score = logPi + beta * u.get(i);
            if (score > bestScore) {
                bestScore = score;
                best = i;
            }
        }
        return best;
    }
}
