package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code alice-rl train} gives the trainer in each phase. */
class EmbeddedConfigTest {
    @TempDir
    Path state;

    @Test
    void theWarmStartTrainsOnEveryCoreAndRlLeavesTheOthersToSampling() {
        var config = EmbeddedConfig.parse(state, "--warm-start-steps", "16");
        assertEquals(Runtime.getRuntime().availableProcessors(), config.trainer("sft").get("trainer.threads"));
        assertEquals(1, config.trainer("rl").get("trainer.threads"));
        assertEquals("sft", config.trainer("sft").get("trainer.mode"));
    }
}
