package ai.openalice.rl.trainer.service;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.events.Termination;
import ai.openalice.rl.trainer.repository.TrainerStore;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class TemperatureScreenTest {
    static TrainerStore.Member at(UUID g, Double temperature) {
        var m = BatchPlanTest.member(g, 0, Termination.SUBMITTED, 0.9, 1, false);
        return new TrainerStore.Member(m.rolloutId(), g, m.taskId(), 0, 2, false, false, m.termination(), m.reward(), m.rExec(), m.sPrm(), m.trajectory(),
                temperature);
    }

    @Test
    void aTrainingGroupWithAMemberSampledAtAnotherTemperatureIsRefusedNamingBoth() {
        UUID same = UUID.randomUUID(), hot = UUID.randomUUID(), old = UUID.randomUUID(), eval = UUID.randomUUID();
        var ready = List.of(
                new TrainerStore.ReadyGroup(same, false, List.of(at(same, 0.7), at(same, 0.7))),
                new TrainerStore.ReadyGroup(hot, false, List.of(at(hot, 0.7), at(hot, 1.0))), // one member is enough
                new TrainerStore.ReadyGroup(old, false, List.of(at(old, null), at(old, null))), // stored before the header: taken as it is
                new TrainerStore.ReadyGroup(eval, true, List.of(at(eval, 1.0)))); // dropped as an evaluation instead
        var off = TemperatureScreen.offTemperature(ready, 0.7);
        assertEquals(Map.of(hot, "sampled at temperature 1.0, the trainer computes log-probs at 0.7 (trainer.loss.temperature): its importance ratios"
                + " would be wrong"), off);
    }
}
