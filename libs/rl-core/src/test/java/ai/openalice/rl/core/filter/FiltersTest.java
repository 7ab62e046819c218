package ai.openalice.rl.core.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FiltersTest {
    private static RolloutOutcome o(String id, EndReason end, double reward, boolean solved) {
        return new RolloutOutcome(id, "g", end, reward, solved);
    }

    @Test
    void compactFilterMasksBudgetHitsAndAlwaysInfraErrors() {
        var all = List.of(o("a", EndReason.SUBMITTED, 1, true), o("b", EndReason.MAX_STEPS, 0, false),
                o("c", EndReason.MAX_CONTEXT, 0, false), o("d", EndReason.TIMEOUT, 0, false), o("e", EndReason.INFRA_ERROR, 0, false));
        var r = CompactFilter.deepSwe().apply(all);
        assertEquals(List.of("a"), r.kept().stream().map(RolloutOutcome::rolloutId).toList());
        assertEquals(Map.of("max_steps", 1, "max_context", 1, "timeout", 1, "infra_error", 1), r.droppedByReason());

        var lenient = new CompactFilter(false, false, false).apply(all);
        assertEquals(List.of("a", "b", "c", "d"), lenient.kept().stream().map(RolloutOutcome::rolloutId).toList());
        assertEquals(Map.of("infra_error", 1), lenient.droppedByReason());
    }

    @Test
    void dynamicSamplingDropsAllEqualGroupsAndCounts() {
        var solveAll = List.of(o("1", EndReason.SUBMITTED, 1, true), o("2", EndReason.SUBMITTED, 1, true));
        var solveNone = List.of(o("3", EndReason.SUBMITTED, 0, false), o("4", EndReason.SUBMITTED, 0, false));
        var partial = List.of(o("5", EndReason.SUBMITTED, 1, true), o("6", EndReason.SUBMITTED, 0, false));
        // No solution, but the rubric score separates them: there is signal, keep it.
        var shaped = List.of(o("7", EndReason.SUBMITTED, 0.1, false), o("8", EndReason.SUBMITTED, 0.0, false));
        var lonely = List.of(o("9", EndReason.SUBMITTED, 0.3, false));

        var r = DynamicSampling.apply(List.of(solveAll, solveNone, partial, shaped, lonely));

        assertEquals(List.of(partial, shaped), r.groups().kept());
        assertEquals(Map.of("all_rewards_equal", 2, "fewer_than_2_valid", 1), r.groups().droppedByReason());
        assertEquals(new DynamicSampling.Counts(3, 1, 1), r.before());
        assertEquals(new DynamicSampling.Counts(1, 0, 1), r.after());
    }
}
