package ai.openalice.rl.trainer.tinker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.checkpoint.Manifest;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.model.onnx.CacheLayout;
import ai.openalice.rl.policy.OrtDecoder;
import ai.openalice.rl.testkit.PythonReference;
import ai.openalice.rl.testkit.RealTinker;
import ai.openalice.rl.tinker.Datum;
import ai.openalice.rl.tinker.LossFn;
import ai.openalice.rl.tinker.TinkerClient;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Tinker learner's checkpoint on the real engine: what it serves is what the engine trained,
 * read three ways (the engine's forward, PEFT over transformers on the checkpoint's adapter, the
 * ONNX graph of the merged weights the inference service loads), and a learner resumed from it goes
 * on with the same weights and the same Adam moments.
 */
class TinkerCheckpointTest {
    /** Qwen's <|im_start|>, "user", a newline, two letters, <|im_end|>, a newline, <|im_start|> and "a". */
    private static final int[] TOKENS = {257, 117, 115, 101, 114, 10, 104, 105, 258, 10, 257, 97};

    private static float[] engine(TinkerClient client, String model, int seq) {
        return client.forward(model, seq, List.of(Datum.ofSequence(TOKENS, null, null, null)), LossFn.CROSS_ENTROPY, Map.of()).logprobs(0);
    }

    @Test
    void aCheckpointServesTheEnginesWeightsAndAResumedLearnerGoesOnFromThem(@TempDir Path tmp) throws Exception {
        var model = TinkerLearnerTest.model(9);
        SequenceBatch b = TinkerBatchTest.batch();
        try (var learner = TinkerLearner.create(new TinkerClient(RealTinker.qwen3Tiny(), null, TinkerClient.Listener.NONE), model,
                TinkerLearnerTest.SETTINGS);
                var other = new TinkerClient(RealTinker.qwen3Tiny(), null, TinkerClient.Listener.NONE)) {
            other.createSession(List.of("alice-rl-test"));
            learner.rl(b);
            Path dir = tmp.resolve("v1");
            Manifest m = learner.checkpoint(dir, "hf", 1, 1);
            assertTrue(m.files().keySet().containsAll(Set.of("adapter_config.json", "adapter_model.safetensors", Checkpoint.ONNX, TinkerState.FILE,
                    "tokenizer.json", "config.json")), "files: " + m.files().keySet());
            assertEquals(List.of("v1"), Arrays.stream(tmp.toFile().list()).toList(), "nothing left beside it");
            TinkerState saved = TinkerState.read(dir).orElseThrow();
            assertEquals(1, saved.optimizerStep());
            assertTrue(saved.state().startsWith("tinker://") && saved.sampler().startsWith("tinker://"), saved.toString());

            float[] trained = engine(other, learner.modelId(), 1001);
            String ids = Arrays.stream(TOKENS).mapToObj(Integer::toString).collect(Collectors.joining(","));
            double[] peft = PythonReference.doubles(PythonReference.reference("logprobs", "--model", RealTinker.baseModel(), "--adapter",
                    dir.toString(), "--tokens", ids).get("logprobs"));
            double[] onnx = onnxLogprobs(dir);
            for (int t = 0; t < trained.length; t++) {
                assertEquals(peft[t], trained[t], 1e-4, "PEFT over transformers on the checkpoint's adapter against the engine at token " + (t + 1));
                assertEquals(onnx[t], trained[t], 1e-4, "the checkpoint's ONNX graph against the engine at token " + (t + 1));
            }

            // resumed as a new model on the engine: the same weights, the step count and Adam's moments go on
            try (var resumed = TinkerLearner.resume(new TinkerClient(RealTinker.qwen3Tiny(), null, TinkerClient.Listener.NONE), saved, model,
                    TinkerLearnerTest.SETTINGS)) {
                assertEquals(1, resumed.step());
                float[] again = engine(other, resumed.modelId(), 1001);
                for (int t = 0; t < trained.length; t++) {
                    assertEquals(trained[t], again[t], 1e-6, "the resumed model at token " + (t + 1));
                }
                double lossHere = learner.rl(b).loss();
                double lossThere = resumed.rl(b).loss();
                assertEquals(lossHere, lossThere, 1e-6, "the second step's loss");
                float[] stepped = engine(other, learner.modelId(), 1002);
                float[] resumedStepped = engine(other, resumed.modelId(), 1002);
                double moved = 0;
                for (int t = 0; t < trained.length; t++) {
                    assertEquals(stepped[t], resumedStepped[t], 1e-5, "after the second step, token " + (t + 1) + " (fresh moments would differ)");
                    moved = Math.max(moved, Math.abs(stepped[t] - trained[t]));
                }
                assertTrue(moved > 1e-4, "the second step moved the model: " + moved);
            }
            var wrong = new TinkerLearner.Model(model.baseModel(), model.baseDir(), 8, 9, true);
            var e = assertThrows(IllegalArgumentException.class, () -> TinkerLearner.resume(other, saved, wrong, TinkerLearnerTest.SETTINGS));
            assertTrue(e.getMessage().contains("rank-4 adapter") && e.getMessage().contains("rank 8"), e.getMessage());
        }
    }

    /** Log-probabilities of TOKENS[1..] under the checkpoint's ONNX graph (ONNX Runtime, as the inference service runs it). */
    private static double[] onnxLogprobs(Path dir) throws Exception {
        HfConfig c = HfConfig.read(dir);
        try (var decoder = new OrtDecoder(dir.resolve(Checkpoint.ONNX), CacheLayout.of(c), 1, false, 0)) {
            float[][] logits = decoder.logitsOfEveryPosition(TOKENS);
            double[] lp = new double[TOKENS.length - 1];
            for (int t = 0; t < lp.length; t++) {
                double max = Double.NEGATIVE_INFINITY;
                for (float x : logits[t]) {
                    max = Math.max(max, x);
                }
                double sum = 0;
                for (float x : logits[t]) {
                    sum += Math.exp(x - max);
                }
                lp[t] = logits[t][TOKENS[t + 1]] - max - Math.log(sum);
            }
            return lp;
        }
    }
}
