package ai.openalice.rl.model.djl;

import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.model.learner.Learner;
import ai.openalice.rl.model.learner.LrSchedule;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.model.train.AdamW;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the learner writes for a HuggingFace model: the trained weights (or adapter) as HuggingFace tools read them, and its optimizer state. */
class HfCheckpointTest {
    @TempDir
    Path dir;

    static Learner<HfLm> learner(HfLm lm) {
        var s = new Learner.Settings(PolicyLossConfig.grpoPlusPlus(3), LrSchedule.constant(0.01, 0), 1, 1, 8, 1f);
        return new Learner<>(lm, AdamW.defaults(), s);
    }

    @Test
    void aFullFineTuneWritesItsWeightsAndAnAdapterItsAdapter() throws Exception {
        var json = TinyModels.config("qwen3");
        HfConfig c = HfConfig.of(json, "qwen3");
        var weights = TinyModels.randomWeights(c, 1);
        Path source = TinyModels.write(dir.resolve("src"), json, weights, DType.F32, 1);
        var batch = SequenceBatch.of(List.of(TestSamples.sample()), 16,
                Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, 3).batch();

        try (var full = learner(HfLm.full(c, weights).from(source, DType.F32))) {
            full.sft(batch, 0);
            var m = full.checkpoint(dir.resolve("v1"), "ignored", 1, 1);
            assertEquals("hf-qwen3", m.architecture());
            assertTrue(m.files().containsKey(Checkpoint.OPTIMIZER), "the optimizer state, to resume");
            var written = HfModel.load(dir.resolve("v1"));
            var trained = full.model().baseWeights();
            assertArrayEquals(trained.get("model.layers.0.mlp.up_proj.weight"), written.weights().floats("model.layers.0.mlp.up_proj.weight"), 0f);
            assertTrue(!Arrays.equals(weights.get("model.layers.0.mlp.up_proj.weight"), trained.get("model.layers.0.mlp.up_proj.weight")),
                    "the step changed the weights");
        }
        var adapter = LoraAdapter.initialise(new LoraConfig(2, 4, List.of("q_proj"), null, false, source.toString()), c, 2);
        try (var lora = learner(HfLm.withAdapter(c, weights, adapter).from(source, DType.F32))) {
            lora.sft(batch, 0);
            lora.checkpoint(dir.resolve("v2"), "ignored", 2, 1);
            assertTrue(Files.exists(dir.resolve("v2/adapter_model.safetensors")) && !Files.exists(dir.resolve("v2/model.safetensors")));
            var saved = LoraAdapter.load(dir.resolve("v2"), c);
            assertArrayEquals(lora.model().adapter().b().get("model.layers.1.self_attn.q_proj"), saved.b().get("model.layers.1.self_attn.q_proj"), 0f);
        }
    }
}
