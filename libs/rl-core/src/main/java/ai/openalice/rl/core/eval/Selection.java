package ai.openalice.rl.core.eval;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Best-of-K selection among K candidate trajectories of one task. Ties are broken
 * deterministically: higher score, then fewer tokens (the cheaper solution), then the smaller id.
 */
public final class Selection {
    private Selection() {}

    /**
     * One candidate: an execution-based score (e.g. the fraction of generated or hidden tests it
     * passes), an execution-free score (e.g. the rubric PRM), and its size in tokens.
     */
    public record Candidate(String id, double executionScore, double executionFreeScore, long tokens) {
        public Candidate {
            Objects.requireNonNull(id, "id");
        }
    }

    private static Comparator<Candidate> tieBreak() {
        return Comparator.comparingLong(Candidate::tokens).thenComparing(Candidate::id);
    }

    /** The candidate with the highest execution-free (verifier) score. */
    public static Candidate bestByExecutionFree(List<Candidate> candidates) {
        return best(candidates, Candidate::executionFreeScore);
    }

    /** The candidate with the highest execution-based score. */
    public static Candidate bestByExecution(List<Candidate> candidates) {
        return best(candidates, Candidate::executionScore);
    }

    /**
     * The hybrid selector: {@code α·exec + (1−α)·free} with α ∈ [0, 1]; on equal hybrid score the
     * execution-free score decides (it separates candidates that pass the same tests), then the
     * tie-break.
     */
    public static Candidate bestHybrid(List<Candidate> candidates, double alpha) {
        if (!(alpha >= 0 && alpha <= 1)) {
            throw new IllegalArgumentException("alpha must be in [0, 1], got " + alpha);
        }
        requireSome(candidates);
        Comparator<Candidate> order = Comparator.<Candidate>comparingDouble(c -> -(alpha * c.executionScore() + (1 - alpha) * c.executionFreeScore()))
                .thenComparingDouble(c -> -c.executionFreeScore())
                .thenComparing(tieBreak());
        return candidates.stream().min(order).orElseThrow();
    }

    private static Candidate best(List<Candidate> candidates, ToDoubleFunction<Candidate> score) {
        requireSome(candidates);
        Comparator<Candidate> order = Comparator.<Candidate>comparingDouble(c -> -score.applyAsDouble(c)).thenComparing(tieBreak());
        return candidates.stream().min(order).orElseThrow();
    }

    private static void requireSome(List<Candidate> candidates) {
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("no candidates to select from");
        }
        for (Candidate c : candidates) {
            if (Double.isNaN(c.executionScore()) || Double.isNaN(c.executionFreeScore())) {
                throw new IllegalArgumentException("candidate " + c.id() + " has a NaN score");
            }
        }
    }
}
