package ai.openalice.rl.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.ReferenceLm;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.model.onnx.CacheLayout;
import ai.openalice.rl.model.onnx.HfOnnxExport;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each family exported to ONNX and decoded with its KV cache — a prompt prefilled, then steps of
 * two sequences of different lengths batched with left padding — gives the reference's
 * next-token log-probabilities ({@link ReferenceLm}, recomputing every position).
 */
class HfOnnxDecoderTest {
    @TempDir
    Path dir;

    static double[] logSoftmax(float[] logits) {
        return ReferenceLm.logSoftmax(logits);
    }

    /** The reference's log-probabilities of every token after {@code seq}. */
    static double[] expected(ReferenceLm ref, int[] seq) {
        return ReferenceLm.logSoftmax(ref.logits(seq)[seq.length - 1]);
    }

    static int[] append(int[] seq, int token) {
        int[] out = Arrays.copyOf(seq, seq.length + 1);
        out[seq.length] = token;
        return out;
    }

    @Test
    void everyFamilyDecodesWithItsCacheAsTheReferenceComputesIt() throws Exception {
        var scaled = TinyModels.config("llama").put("tie_word_embeddings", true);
        scaled.putObject("rope_scaling").put("rope_type", "llama3").put("factor", 8.0).put("low_freq_factor", 1.0).put("high_freq_factor", 4.0)
                .put("original_max_position_embeddings", 16);
        for (ObjectNode json : List.of(scaled, TinyModels.config("qwen2"), TinyModels.config("qwen3"), TinyModels.config("qwen3").put("num_key_value_heads", 1))) {
            HfConfig c = HfConfig.of(json, json.toString());
            var weights = TinyModels.randomWeights(c, 6);
            var ref = new ReferenceLm(c, weights);
            Path onnx = dir.resolve(c.modelType() + c.kvHeads() + c.tieWordEmbeddings() + ".onnx");
            HfOnnxExport.export(c, weights, onnx, "test", Long.MAX_VALUE);
            try (var decoder = new OrtDecoder(onnx, CacheLayout.of(c), 1, false, 0)) {
                int[] a = {1, 5, 3, 9, 0};
                int[] b = {4, 2};
                KvSequence[] sa = new KvSequence[1];
                KvSequence[] sb = new KvSequence[1];
                assertArrayEquals(expected(ref, a), logSoftmax(decoder.prefill(a, sa)), 1e-4, json + ": prefill");
                assertArrayEquals(expected(ref, b), logSoftmax(decoder.prefill(b, sb)), 1e-4, json + ": prefill");
                for (int step = 0; step < 3; step++) {
                    int ta = (7 + step) % c.vocabSize();
                    int tb = (2 * step + 1) % c.vocabSize();
                    float[][] next = decoder.step(List.of(sa[0], sb[0]), new int[] {ta, tb});
                    a = append(a, ta);
                    b = append(b, tb);
                    assertArrayEquals(expected(ref, a), logSoftmax(next[0]), 1e-4, json + ": step " + step + " of the longer sequence");
                    assertArrayEquals(expected(ref, b), logSoftmax(next[1]), 1e-4, json + ": step " + step + " of the left-padded one");
                }
            }
        }
    }

    /** A prompt fed in chunks (as a long one is, to bound the logits brought back) decodes as the reference computes it. */
    @Test
    void aPromptFedInChunksGivesTheReferencesLogProbabilities() throws Exception {
        HfConfig c = HfConfig.of(TinyModels.config("qwen3"), "qwen3");
        var weights = TinyModels.randomWeights(c, 8);
        var ref = new ReferenceLm(c, weights);
        Path onnx = dir.resolve("chunks.onnx");
        HfOnnxExport.export(c, weights, onnx, "test", Long.MAX_VALUE);
        try (var decoder = new OrtDecoder(onnx, CacheLayout.of(c), 1, false, 0).withPrefillChunk(3)) {
            int[] prompt = {1, 5, 3, 9, 0, 7, 2, 2, 4, 10, 6}; // 11 positions: chunks of 3, 3, 3 and 2
            KvSequence[] seq = new KvSequence[1];
            assertArrayEquals(expected(ref, prompt), logSoftmax(decoder.prefill(prompt, seq)), 1e-4, "the last chunk's last row");
            assertEquals(prompt.length, seq[0].length, "every chunk went into the cache");
            float[][] next = decoder.step(List.of(seq[0]), new int[] {8});
            assertArrayEquals(expected(ref, append(prompt, 8)), logSoftmax(next[0]), 1e-4, "a step after the chunks reads the whole cache");
        }
    }

    /**
     * A persistent batch keeps its cache in two parts and merges them every {@link OrtDecoder#FOLD}
     * steps: carried past two merges, each step of two left-padded sequences still gives the
     * reference's log-probabilities, and the caches it releases decode on as the reference computes.
     */
    @Test
    void aBatchCarriedPastItsMergesGivesTheReferencesLogProbabilities() throws Exception {
        HfConfig c = HfConfig.of(TinyModels.config("qwen3").put("num_key_value_heads", 1).put("max_position_embeddings", 512), "qwen3-mqa");
        var weights = TinyModels.randomWeights(c, 9);
        Path onnx = dir.resolve("fold.onnx");
        HfOnnxExport.export(c, weights, onnx, "test", Long.MAX_VALUE);
        decodesLong(onnx, c, new ReferenceLm(c, weights));
    }

    /**
     * A graph exported before the cache came in two parts (it reads past_* whole and returns it
     * extended: a checkpoint written by an earlier version, kept as a test resource) is still served
     * the same way, as the reference computes.
     */
    @Test
    void aGraphThatReadsItsCacheWholeIsStillServed() throws Exception {
        HfConfig c = HfConfig.of(TinyModels.config("qwen3").put("max_position_embeddings", 512), "qwen3"); // as it was exported, with seed 10
        Path onnx = dir.resolve("whole-cache.onnx");
        try (var in = HfOnnxDecoderTest.class.getResourceAsStream("/whole-cache-qwen3.onnx")) {
            Files.copy(in, onnx);
        }
        decodesLong(onnx, c, new ReferenceLm(c, TinyModels.randomWeights(c, 10)));
    }

    /** Two left-padded sequences stepped in one batch past two merges, released, and stepped once more alone. */
    private static void decodesLong(Path onnx, HfConfig c, ReferenceLm ref) {
        try (var decoder = new OrtDecoder(onnx, CacheLayout.of(c), 1, false, 0)) {
            int[] a = {1, 5, 3, 9, 0};
            int[] b = {4, 2};
            KvSequence[] sa = new KvSequence[1];
            KvSequence[] sb = new KvSequence[1];
            decoder.prefill(a, sa);
            decoder.prefill(b, sb);
            int steps = 2 * OrtDecoder.FOLD + 3;
            try (var batch = decoder.batch(List.of(sa[0], sb[0]))) {
                for (int step = 0; step < steps; step++) {
                    int ta = (3 * step + 1) % c.vocabSize();
                    int tb = (5 * step + 2) % c.vocabSize();
                    float[][] next = batch.step(new int[] {ta, tb});
                    a = append(a, ta);
                    b = append(b, tb);
                    assertArrayEquals(expected(ref, a), logSoftmax(next[0]), 1e-4, "step " + step + " of the longer sequence");
                    assertArrayEquals(expected(ref, b), logSoftmax(next[1]), 1e-4, "step " + step + " of the left-padded one");
                }
                batch.release();
            }
            assertEquals(a.length, sa[0].length);
            float[][] next = decoder.step(List.of(sb[0]), new int[] {6});
            assertArrayEquals(expected(ref, append(b, 6)), logSoftmax(next[0]), 1e-4, "a step on the released cache");
        }
    }
}
