package ai.openalice.rl.inference.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.inference.config.InferenceConfig;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.testkit.PythonReference;
import ai.openalice.rl.testkit.ScratchDirs;
import ai.openalice.rl.testkit.RealVllm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Full-weight checkpoints reloaded in place in a real vLLM (its development mode's
 * {@code /collective_rpc reload_weights}, then {@code /reset_prefix_cache}): SmolLM2's own weights
 * as v6, the same with a strong change merged into them as v7, SmolLM2's again as v8 — after each
 * reload vLLM's greedy tokens equal transformers' {@code generate} on that folder. The prompt is
 * longer than one of vLLM's 128-token CPU KV blocks, so a prefix cache left over from the previous
 * weights would answer part of it (a shorter prompt hid that). The test leaves vLLM serving
 * SmolLM2's own weights, as the other tests of this JVM expect.
 */
class RealVllmFullWeightsTest {
    @Test
    void eachReloadedCheckpointAnswersAsTransformersOnItsFolder() throws Exception {
        Path base = PythonReference.smolLm2();
        Path changed = changed(base);
        int[] prompt = longPrompt(base);
        assertTrue(prompt.length > 128, "longer than a KV block: " + prompt.length);
        String ids = IntStream.of(prompt).mapToObj(Integer::toString).collect(Collectors.joining(","));
        int[] baseTokens = greedy(base, ids);
        int[] changedTokens = greedy(changed, ids);
        assertFalse(Arrays.equals(baseTokens, changedTokens), "the change moves the greedy answer (else a reload that did nothing would pass)");

        var gateway = new EngineGateway(Engines.open(InferenceConfig.Engine.VLLM, RealVllm.smolLm2(), null), 2);
        var request = new ServingEngine.Request(prompt, baseTokens.length, 0, 1, 0L, List.of());
        long[] versions = {6, 7, 8};
        Path[] folders = {base, changed, base};
        int[][] expected = {baseTokens, changedTokens, baseTokens};
        for (int i = 0; i < versions.length; i++) {
            long start = System.nanoTime();
            gateway.load(versions[i], folders[i]);
            System.out.printf("[vLLM] full weights v%d reloaded in %d ms%n", versions[i], (System.nanoTime() - start) / 1_000_000);
            var answer = gateway.complete(request, null);
            assertEquals(versions[i], answer.version());
            assertArrayEquals(expected[i], answer.completion().tokens(), "v" + versions[i] + " answered as transformers on " + folders[i]);
        }

        // an adapter the engine refuses (rank 16 over its --max-lora-rank 8): a clear error with vLLM's reason, and v8 keeps serving
        var refused = assertThrows(EngineException.class, () -> gateway.load(9, rank16(base)));
        System.out.println("[vLLM] refused: " + refused.getMessage());
        assertTrue(refused.getMessage().contains("load_lora_adapter") && refused.getMessage().toLowerCase().contains("rank"), refused.getMessage());
        assertEquals(List.of(8L), gateway.versions());
        assertArrayEquals(baseTokens, gateway.complete(request, null).completion().tokens(), "v8 still answers");
    }

    static Path rank16(Path base) throws Exception {
        HfModel m = HfModel.load(base);
        var adapter = LoraAdapter.initialise(new LoraConfig(16, 32, List.of("q_proj", "v_proj"), null, false, base.toString()), m.config(), 9);
        Path dir = Files.createTempDirectory("vllm-rank16").resolve("v9");
        Checkpoint.saveHf(dir, m.config(), base, adapter.merge(m.floats()), adapter, DType.F32, 9, 90, Map.of(), 0, false);
        return dir;
    }

    /** SmolLM2 with a random rank-8 change on q_proj and v_proj merged into its weights: full weights, no adapter. */
    static Path changed(Path base) throws Exception {
        HfModel m = HfModel.load(base);
        var adapter = LoraAdapter.initialise(new LoraConfig(8, 16, List.of("q_proj", "v_proj"), null, false, base.toString()), m.config(), 7);
        var rnd = new Random(7);
        adapter.b().values().forEach(b -> {
            for (int i = 0; i < b.length; i++) {
                b[i] = (float) (0.15 * rnd.nextGaussian());
            }
        });
        Path dir = ScratchDirs.create("vllm-full").resolve("v7");
        Checkpoint.saveHf(dir, m.config(), base, adapter.merge(m.floats()), null, DType.F32, 7, 70, Map.of(), 0, false);
        return dir;
    }

    static int[] longPrompt(Path model) throws Exception {
        Path messages = Files.createTempFile("messages", ".json");
        String context = "The garden has a pond, three apple trees, a shed with old tools, a bench under the oak, and a path of grey stones"
                + " that winds from the gate to the kitchen door. ";
        Files.writeString(messages, "[{\"role\": \"user\", \"content\": \"" + context.repeat(4)
                + "Describe the garden in a long paragraph, then list every object in it.\"}]");
        return PythonReference.ints(PythonReference.reference("chat", "--model", model.toString(), "--messages", messages.toString()).get("ids"));
    }

    static int[] greedy(Path model, String ids) {
        return PythonReference.ints(PythonReference.reference("generate", "--model", model.toString(), "--tokens", ids, "--max-new-tokens", "24")
                .get("tokens"));
    }
}
