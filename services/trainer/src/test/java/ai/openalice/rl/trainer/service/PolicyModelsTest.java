package ai.openalice.rl.trainer.service;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.checkpoint.CheckpointException;
import ai.openalice.rl.model.djl.CausalLm;
import ai.openalice.rl.model.djl.HfLm;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.TinyModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trainer's model: a HuggingFace folder trained fully or through LoRA, and resumed from the checkpoints it writes, bit for bit. */
class PolicyModelsTest {
    static Path tinyQwen2(Path dir) throws Exception {
        var json = TinyModels.config("qwen2");
        return TinyModels.write(dir, json, TinyModels.randomWeights(HfConfig.of(json, "qwen2"), 5), DType.F32, 1);
    }

    static void assertSameValues(Map<String, float[]> expected, Map<String, float[]> actual) {
        assertEquals(expected.keySet(), actual.keySet());
        expected.forEach((k, v) -> assertArrayEquals(v, actual.get(k), k));
    }

    @Test
    void fullFineTuningResumesWithItsWeightsAndOptimizerState(@TempDir Path tmp) throws Exception {
        Path model = tinyQwen2(tmp.resolve("model"));
        var start = PolicyModels.fromHf(model, Optional.empty(), new PolicyModels.Lora(0, 16, List.of("q_proj"), false), 1);
        try (CausalLm lm = start.model()) {
            assertEquals(HfConfig.read(model).tensors().keySet(), lm.parameters().keySet(), "every weight trains");
            var adam = Map.of("m.model.norm.weight", new float[] {0.5f, 0.25f});
            lm.save(tmp.resolve("v1"), "ignored", 1, 3, adam, 42);
            assertTrue(Files.isRegularFile(tmp.resolve("v1/model.safetensors")));
            var resumed = PolicyModels.resume(tmp.resolve("v1"), Optional.empty());
            try (CausalLm again = resumed.model()) {
                assertSameValues(lm.snapshot(), again.snapshot());
                assertSameValues(adam, resumed.optimizer());
                assertEquals(42, resumed.optimizerStep());
            }
        }
    }

    @Test
    void aNewAdapterTrainsOnlyAAndBAndResumesOverItsBase(@TempDir Path tmp) throws Exception {
        Path model = tinyQwen2(tmp.resolve("model"));
        var start = PolicyModels.fromHf(model, Optional.empty(), new PolicyModels.Lora(2, 4, List.of("q_proj", "v_proj"), false), 1);
        try (CausalLm lm = start.model()) {
            assertEquals(2 * 2 * 2, lm.parameters().size(), "2 layers x (q_proj, v_proj) x (A, B)");
            assertTrue(lm.parameters().keySet().stream().allMatch(k -> k.endsWith("lora_A.weight") || k.endsWith("lora_B.weight")));
            lm.save(tmp.resolve("v1"), "ignored", 1, 3, Map.of(), 0);
            assertTrue(Files.isRegularFile(tmp.resolve("v1/adapter_config.json")));
            assertTrue(Files.isRegularFile(tmp.resolve("v1/model.onnx")), "served in process by default");
            // for an external engine (trainer.export-onnx=false): the adapter without the merged graph, resumable all the same
            ((HfLm) lm).exportOnnx(false).save(tmp.resolve("v2"), "ignored", 2, 4, Map.of(), 0);
            assertFalse(Files.exists(tmp.resolve("v2/model.onnx")));
            assertFalse(Checkpoint.verify(tmp.resolve("v2")).files().containsKey("model.onnx"));
            try (CausalLm v2 = PolicyModels.resume(tmp.resolve("v2"), Optional.of(model)).model()) {
                assertSameValues(lm.snapshot(), v2.snapshot());
            }
            assertFalse(Files.exists(tmp.resolve("v1/model.safetensors")), "the base stays where it is");
            try (CausalLm again = PolicyModels.resume(tmp.resolve("v1"), Optional.of(model)).model()) {
                assertSameValues(lm.snapshot(), again.snapshot());
            }
            try (CausalLm byItsConfig = PolicyModels.resume(tmp.resolve("v1"), Optional.empty()).model()) {
                assertSameValues(lm.snapshot(), byItsConfig.snapshot());
            }
        }
        try (var files = Files.walk(model)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        var e = assertThrows(CheckpointException.class, () -> PolicyModels.resume(tmp.resolve("v1"), Optional.empty()));
        assertTrue(e.getMessage().contains("set trainer.init-model to the base model"), e.getMessage());
    }
}
