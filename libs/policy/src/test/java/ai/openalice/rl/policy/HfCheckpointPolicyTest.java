package ai.openalice.rl.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.checkpoint.Manifest;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.model.hf.ReferenceLm;
import ai.openalice.rl.model.hf.TinyModels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A HuggingFace-family checkpoint — full, or an adapter — served in-process: the reference's greedy tokens, and a folder HuggingFace tools read. */
class HfCheckpointPolicyTest {
    @TempDir
    Path dir;

    static int[] referenceGreedy(ReferenceLm ref, int[] prompt, int n) {
        int[] seq = prompt.clone();
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            double[] last = ref.logits(seq)[seq.length - 1];
            int best = 0;
            for (int v = 1; v < last.length; v++) {
                best = last[v] > last[best] ? v : best;
            }
            out[i] = best;
            seq = Arrays.copyOf(seq, seq.length + 1);
            seq[seq.length - 1] = best;
        }
        return out;
    }

    @Test
    void aFullCheckpointServesTheModelAndCarriesItsHuggingFaceFolder() throws Exception {
        var json = TinyModels.config("qwen2").put("vocab_size", 24);
        HfConfig c = HfConfig.of(json, "qwen2");
        var weights = TinyModels.randomWeights(c, 9);
        Path source = TinyModels.write(dir.resolve("src"), json, weights, DType.BF16, 1);
        var widened = HfModel.load(source).floats();
        Path ckpt = dir.resolve("v3");
        Manifest m = Checkpoint.saveHf(ckpt, c, source, widened, null, DType.BF16, 3, 30, Map.of(), 0);
        assertEquals("hf-qwen2", m.architecture());
        assertEquals(Manifest.HF_TOKENIZER, m.tokenizer());
        assertTrue(m.files().keySet().containsAll(List.of("model.onnx", "model.safetensors", "config.json", "tokenizer.json")), m.files().toString());

        // the folder is itself a HuggingFace model folder with the same weights
        var again = HfModel.load(ckpt).floats();
        for (String name : c.tensors().keySet()) {
            assertArrayEquals(widened.get(name), again.get(name), 0f, name);
        }
        try (var policy = new OrtPolicy(ckpt)) {
            int[] prompt = policy.tokenizer().encode("w3 w7 w1");
            assertArrayEquals(new int[] {3, 7, 1}, prompt, "the checkpoint's own tokenizer.json");
            var completion = policy.complete(CompletionRequest.greedy(prompt, 6));
            assertEquals(3, completion.policyVersion());
            assertArrayEquals(referenceGreedy(new ReferenceLm(c, widened), prompt, 6), completion.tokens());
        }
    }

    @Test
    void anAdapterCheckpointServesTheMergedModelAndKeepsTheAdapterInPeftsFormat() throws Exception {
        var json = TinyModels.config("llama").put("vocab_size", 24);
        HfConfig c = HfConfig.of(json, "llama");
        var base = TinyModels.randomWeights(c, 4);
        Path source = TinyModels.write(dir.resolve("base"), json, base, DType.F32, 1);
        var adapter = LoraAdapter.initialise(new LoraConfig(2, 4, List.of("q_proj", "v_proj"), null, false, source.toString()), c, 3);
        var rnd = new Random(1);
        adapter.b().values().forEach(b -> {
            for (int i = 0; i < b.length; i++) {
                b[i] = (float) rnd.nextGaussian();
            }
        });
        var merged = adapter.merge(base);
        Path ckpt = dir.resolve("v4");
        Checkpoint.saveHf(ckpt, c, source, merged, adapter, DType.F32, 4, 40, Map.of(), 0);
        assertTrue(Files.isRegularFile(ckpt.resolve("adapter_model.safetensors")) && !Files.exists(ckpt.resolve("model.safetensors")));
        var reloaded = LoraAdapter.load(ckpt, c);
        assertArrayEquals(adapter.b().get("model.layers.1.self_attn.v_proj"), reloaded.b().get("model.layers.1.self_attn.v_proj"), 0f);
        try (var policy = new OrtPolicy(ckpt)) {
            int[] prompt = {5, 2, 9};
            assertArrayEquals(referenceGreedy(new ReferenceLm(c, merged), prompt, 6), policy.complete(CompletionRequest.greedy(prompt, 6)).tokens());
        }
    }
}
