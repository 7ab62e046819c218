package ai.openalice.rl.trainer.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.model.checkpoint.Checkpoint;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which optimizer state a run starting from {@code init-checkpoint} begins with. */
class InitOptimizerTest {
    private static final Map<String, float[]> ADAM = Map.of("m.w", new float[] {0.5f}, "v.w", new float[] {0.25f});

    private static Checkpoint.Loaded init(Map<String, float[]> optimizer) {
        return new Checkpoint.Loaded(null, Map.of("w", new float[] {1f}), optimizer, optimizer.isEmpty() ? 0 : 423, Path.of("init"));
    }

    @Test
    void anotherLegOfTheSameTrainingKeepsTheCheckpointsState() {
        assertSame(ADAM, LearnerStart.initialOptimizer(init(ADAM).optimizer(), true));
    }

    @Test
    void aNewKindOfTrainingStartsAdamAfresh() {
        assertTrue(LearnerStart.initialOptimizer(init(ADAM).optimizer(), false).isEmpty());
    }

    @Test
    void aCheckpointWithoutOptimizerStateStartsAfreshEitherWay() {
        assertEquals(Map.of(), LearnerStart.initialOptimizer(init(Map.of()).optimizer(), true));
    }
}
