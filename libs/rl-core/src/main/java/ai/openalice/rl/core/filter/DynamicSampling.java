package ai.openalice.rl.core.filter;

import java.util.ArrayList;
import java.util.List;

/**
 * Dynamic sampling (DAPO, DeepSWE): drops groups whose valid rewards are all equal — they have
 * zero advantage everywhere and only dilute the batch — and groups with fewer than two valid
 * members (no baseline). Reports solve-none / solve-all / partial group counts before and after.
 * Groups are given as their valid (unmasked) members.
 */
public final class DynamicSampling {
    /** Why a group was dropped. */
    public enum Why implements DropReason {
        ALL_EQUAL("all_rewards_equal", "every valid reward equal: no learning signal"),
        TOO_FEW_VALID("fewer_than_2_valid", "fewer than 2 valid members"),
        SAME_OUTCOME("all_outcomes_equal", "every valid member solved, or none: only the rubric's share differs");

        private final String wire;
        private final String sentence;

        Why(String wire, String sentence) {
            this.wire = wire;
            this.sentence = sentence;
        }

        @Override
        public String wire() { return wire; }

        @Override
        public String sentence() { return sentence; }
    }

    private DynamicSampling() {}

    /** Groups by outcome. */
    public enum Solve { SOLVE_NONE, SOLVE_ALL, PARTIAL }

    /** Counts of groups by {@link Solve} class. */
    public record Counts(int solveNone, int solveAll, int partial) {
        static Counts of(List<List<RolloutOutcome>> groups) {
            int none = 0, all = 0, partial = 0;
            for (List<RolloutOutcome> g : groups) {
                switch (classify(g)) {
                    case SOLVE_NONE -> none++;
                    case SOLVE_ALL -> all++;
                    case PARTIAL -> partial++;
                }
            }
            return new Counts(none, all, partial);
        }

        public int total() {
            return solveNone + solveAll + partial;
        }
    }

    /** The filter's outcome: kept and dropped groups, and the counts before and after. */
    public record Result(FilterResult<List<RolloutOutcome>> groups, Counts before, Counts after) {}

    public static Solve classify(List<RolloutOutcome> group) {
        long solved = group.stream().filter(RolloutOutcome::solved).count();
        return solved == 0 ? Solve.SOLVE_NONE : solved == group.size() ? Solve.SOLVE_ALL : Solve.PARTIAL;
    }

    public static Result apply(List<List<RolloutOutcome>> groups) {
        return apply(groups, false);
    }

    /**
     * With {@code byOutcome}, a group must also be mixed in outcome — some members solved, some not
     * (DAPO's accuracy filter): a group that differs only by a shaping term (the rubric's share of
     * the reward) is dropped as {@link Why#SAME_OUTCOME}.
     */
    public static Result apply(List<List<RolloutOutcome>> groups, boolean byOutcome) {
        var kept = new ArrayList<List<RolloutOutcome>>();
        var dropped = new ArrayList<FilterResult.Dropped<List<RolloutOutcome>>>();
        for (List<RolloutOutcome> g : groups) {
            if (g.size() < 2) {
                dropped.add(new FilterResult.Dropped<>(g, Why.TOO_FEW_VALID));
            } else if (allEqual(g)) {
                dropped.add(new FilterResult.Dropped<>(g, Why.ALL_EQUAL));
            } else if (byOutcome && classify(g) != Solve.PARTIAL) {
                dropped.add(new FilterResult.Dropped<>(g, Why.SAME_OUTCOME));
            } else {
                kept.add(g);
            }
        }
        return new Result(FilterResult.of(kept, dropped), Counts.of(groups), Counts.of(kept));
    }

    private static boolean allEqual(List<RolloutOutcome> g) {
        double first = g.getFirst().reward();
        for (RolloutOutcome o : g) {
            if (o.reward() != first) {
                return false;
            }
        }
        return true;
    }
}
