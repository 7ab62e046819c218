package ai.openalice.rl.trainer.service;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.core.filter.CompactFilter;
import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.learner.Sample;
import ai.openalice.rl.trainer.config.TrainerConfig;
import ai.openalice.rl.trainer.repository.TrainerStore;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class BatchPlanTest {
    static final List<Turn> ONE_TURN = List.of(new Turn(0, List.of(1), List.of(2), List.of(-1.0), 0, new Action("submit", null, null), "", 0, 0));

    static TrainerStore.Member member(UUID g, long version, Termination end, Double reward, Integer rExec, boolean infra) {
        return new TrainerStore.Member(UUID.randomUUID(), g, "t", version, 3, infra, infra, end, infra ? null : reward, infra ? null : rExec,
                infra ? null : 0.5, new TrajectoryRef.Inline(new Trajectory(ONE_TURN)), 0.7);
    }

    @Test
    void dropsWithReasonsAndLeaveOneOutByHand() {
        UUID g1 = UUID.randomUUID(), g2 = UUID.randomUUID(), g3 = UUID.randomUUID(), g4 = UUID.randomUUID();
        var groups = List.of(
                new TrainerStore.ReadyGroup(g1, false, List.of(member(g1, 5, Termination.SUBMITTED, 0.9, 1, false),
                        member(g1, 5, Termination.SUBMITTED, 0.1, 0, false), member(g1, 5, Termination.SUBMITTED, 0.1, 0, false),
                        member(g1, 5, Termination.INFRA_ERROR, null, null, true))),
                new TrainerStore.ReadyGroup(g2, false, List.of(member(g2, 5, Termination.SUBMITTED, 0.5, 0, false),
                        member(g2, 5, Termination.SUBMITTED, 0.5, 0, false), member(g2, 5, Termination.MAX_STEPS, 0.1, 0, false))),
                new TrainerStore.ReadyGroup(g3, true, List.of(member(g3, 5, Termination.SUBMITTED, 1.0, 1, false))),
                new TrainerStore.ReadyGroup(g4, false, List.of(member(g4, 0, Termination.SUBMITTED, 1.0, 1, false))));
        var plan = BatchPlan.of(groups, 5, 4, "loo", false, m -> ((TrajectoryRef.Inline) m.trajectory()).trajectory().turns());
        assertEquals(List.of(g1), plan.groups());
        // LOO: 0.9 − (0.1 + 0.1)/2 = 0.8; 0.1 − (0.9 + 0.1)/2 = −0.4 (twice); the infra member is not in the baseline
        assertArrayEquals(new double[] {0.8, -0.4, -0.4}, plan.samples().stream().mapToDouble(s -> s.advantage()).toArray(), 1e-12);
        assertEquals(Map.of("evaluation", 1L, "stale", 1L, "all_rewards_equal", 1L, "member_masked", 1L), plan.droppedByReason());
        // scored members of the groups that were not dropped before scoring (g1, g2): (0.9 + 0.1 + 0.1 + 0.5 + 0.5 + 0.1) / 6
        assertEquals(2.2 / 6, plan.meanReward(), 1e-12);
        assertEquals(1.0 / 6, plan.rExecRate(), 1e-12);
    }

    @Test
    void withoutCompactFilteringATruncatedEpisodeKeepsItsVerdict() {
        UUID g = UUID.randomUUID();
        // fixed the bug but ran out of turns (reward 1), against one that submitted a wrong fix (reward 0)
        var group = List.of(new TrainerStore.ReadyGroup(g, false, List.of(member(g, 0, Termination.MAX_STEPS, 1.0, 1, false),
                member(g, 0, Termination.SUBMITTED, 0.0, 0, false))));
        var filtered = BatchPlan.of(group, 0, 4, "loo", false, m -> ONE_TURN);
        assertEquals(List.of(), filtered.samples(), "DeepSWE: the truncated member leaves, one is left, nothing to compare");
        var kept = BatchPlan.of(group, 0, 4, "loo", false, m -> ONE_TURN, new CompactFilter(false, false, false), TrainerConfig.DynamicSampling.REWARD);
        // leave-one-out: 1 − 0 and 0 − 1
        assertEquals(List.of(1.0, -1.0), kept.samples().stream().map(Sample::advantage).toList());
    }

    @Test
    void byOutcomeAGroupThatOnlyTheRubricTellsApartIsDropped() {
        UUID none = UUID.randomUUID();
        UUID mixed = UUID.randomUUID();
        // none solved, rewards 0.2 · s_prm differ; a mixed group beside it
        var groups = List.of(new TrainerStore.ReadyGroup(none, false, List.of(member(none, 0, Termination.SUBMITTED, 0.12, 0, false),
                member(none, 0, Termination.SUBMITTED, 0.08, 0, false))), new TrainerStore.ReadyGroup(mixed, false,
                List.of(member(mixed, 0, Termination.SUBMITTED, 0.9, 1, false), member(mixed, 0, Termination.SUBMITTED, 0.1, 0, false))));
        var byReward = BatchPlan.of(groups, 0, 4, "loo", false, m -> ONE_TURN);
        assertEquals(4, byReward.samples().size(), "rewards differ in both groups");
        var byOutcome = BatchPlan.of(groups, 0, 4, "loo", false, m -> ONE_TURN, CompactFilter.deepSwe(), TrainerConfig.DynamicSampling.OUTCOME);
        assertEquals(Map.of("all_outcomes_equal", 1L), byOutcome.droppedByReason());
        assertEquals(List.of(mixed), byOutcome.groups());
        // leave-one-out in the mixed group: 0.9 − 0.1 and 0.1 − 0.9
        assertEquals(0.8, byOutcome.samples().get(0).advantage(), 1e-12);
        assertEquals(-0.8, byOutcome.samples().get(1).advantage(), 1e-12);
    }

    @Test
    void withoutDynamicSamplingEqualRewardsTrainAtZeroAdvantage() {
        UUID equal = UUID.randomUUID();
        UUID lone = UUID.randomUUID();
        var groups = List.of(new TrainerStore.ReadyGroup(equal, false, List.of(member(equal, 0, Termination.MAX_STEPS, 0.0, 0, false),
                member(equal, 0, Termination.MAX_STEPS, 0.0, 0, false))), new TrainerStore.ReadyGroup(lone, false,
                List.of(member(lone, 0, Termination.SUBMITTED, 1.0, 1, false))));
        var plan = BatchPlan.of(groups, 0, 4, "loo", false, m -> ONE_TURN, new CompactFilter(false, false, false),
                TrainerConfig.DynamicSampling.NONE);
        assertEquals(List.of(equal), plan.groups());
        assertEquals(0.0, plan.samples().get(0).advantage(), 1e-12);
        assertEquals(0.0, plan.samples().get(1).advantage(), 1e-12);
        assertEquals(Map.of("fewer_than_2_valid", 1L), plan.droppedByReason());
    }

    @Test
    void staleGroupsAreDroppedAndCounted() {
        UUID g = UUID.randomUUID();
        var plan = BatchPlan.of(List.of(new TrainerStore.ReadyGroup(g, false, List.of(member(g, 0, Termination.SUBMITTED, 1.0, 1, false),
                member(g, 0, Termination.SUBMITTED, 0.0, 0, false)))), 5, 4, "loo", false, m -> ONE_TURN);
        assertEquals(Map.of("stale", 1L), plan.droppedByReason());
        assertEquals("stale: sampled at v0, trainer at v5 (max-staleness 4)", plan.dropped().get(g));
    }

    @Test
    void gigpoAddsStepAdvantagesWithinAnchorStates() {
        UUID g = UUID.randomUUID();
        // both saw the same task (turn 0), then different observations (turn 1)
        var solved = List.of(turn(0, List.of(7, 7)), turn(1, List.of(8)));
        var failed = List.of(turn(0, List.of(7, 7)), turn(1, List.of(9)));
        var a = member(g, 1, Termination.SUBMITTED, 1.0, 1, false);
        var b = member(g, 1, Termination.SUBMITTED, 0.0, 0, false);
        var plan = BatchPlan.of(List.of(new TrainerStore.ReadyGroup(g, false, List.of(a, b))), 1, 4, "gigpo", false,
                m -> m == a ? solved : failed);
        // A^E: LOO 1 − 0 = 1 and −1; turn 0 anchor {a, b}: returns 1 and 0 → A^S = ±0.5; turn 1: singletons → 0
        assertArrayEquals(new double[] {1.5, 1.0}, plan.samples().get(0).turnAdvantages(), 1e-12);
        assertArrayEquals(new double[] {-1.5, -1.0}, plan.samples().get(1).turnAdvantages(), 1e-12);
    }

    static Turn turn(int i, List<Integer> prompt) {
        return new Turn(i, prompt, List.of(3), List.of(-1.0), 1, new Action("bash", null, null), "", 0, 0);
    }
}
