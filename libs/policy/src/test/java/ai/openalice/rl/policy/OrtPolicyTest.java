package ai.openalice.rl.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.types.Shape;
import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.Sampler;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.djl.Gpt;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OrtPolicyTest {
    static final GptConfig C = new GptConfig(new ByteTokenizer().vocabSize(), 64, 2, 2, 32);
    @TempDir
    static Path tmp;
    static Path checkpoint;
    static Gpt gpt;

    @BeforeAll
    static void export() {
        gpt = Gpt.initialise(C, 11);
        checkpoint = tmp.resolve("v5");
        Checkpoint.save(checkpoint, C, "byte-v1", 5, 50, gpt.snapshot(), Map.of(), 0);
    }

    /** DJL's greedy continuation, recomputing the whole context each step. */
    private static int[] djlGreedy(int[] prompt, int n) {
        int[] seq = prompt.clone();
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            long[] ids = Arrays.stream(seq).asLongStream().toArray();
            float[] all = gpt.logits(gpt.manager().create(ids, new Shape(1, ids.length))).toFloatArray();
            float[] last = Arrays.copyOfRange(all, (ids.length - 1) * C.vocabSize(), ids.length * C.vocabSize());
            out[i] = new Sampler(0, 1, 0).next(last).token();
            seq = Arrays.copyOf(seq, seq.length + 1);
            seq[seq.length - 1] = out[i];
        }
        return out;
    }

    @Test
    void greedyCompletionMatchesDjlAndNamesItsVersion() {
        try (var policy = new OrtPolicy(checkpoint)) {
            int[] prompt = policy.tokenizer().encode("def add(a, b):");
            var c = policy.complete(CompletionRequest.greedy(prompt, 12));
            assertEquals(5, c.policyVersion());
            assertEquals(12, c.tokens().length);
            assertEquals(Completion.FinishReason.LENGTH, c.finish());
            assertArrayEquals(djlGreedy(prompt, 12), c.tokens());
            assertTrue(Arrays.stream(c.logprobs()).allMatch(l -> l <= 0));
        }
    }

    @Test
    void seededSamplingIsReproducibleAndContextIsBounded() {
        try (var policy = new OrtPolicy(checkpoint)) {
            int[] prompt = policy.tokenizer().encode("x = ");
            var req = new CompletionRequest(prompt, 20, 1.0, 0.95, 123L, List.of(), null);
            assertArrayEquals(policy.complete(req).tokens(), policy.complete(req).tokens());
            var longPrompt = new int[60];
            var c = policy.complete(new CompletionRequest(longPrompt, 50, 1.0, 1.0, 1L, List.of(), null));
            assertTrue(c.tokens().length <= 4 && (c.finish() == Completion.FinishReason.CONTEXT || c.finish() == Completion.FinishReason.STOP));
            assertEquals("policy version 9 is not loaded (this is v5)", assertThrows(PolicyException.class,
                    () -> policy.complete(new CompletionRequest(prompt, 5, 0, 1, 0L, List.of(), 9L))).getMessage());
        }
    }

    @Test
    void aPersistentBatchStaysEqualToEachSequenceAloneAcrossStepsAndRegrouping() {
        var m = Checkpoint.verify(checkpoint);
        var t = new ByteTokenizer();
        try (var dec = new OrtDecoder(checkpoint.resolve(Checkpoint.ONNX), m.config(), 1)) {
            var a = new KvSequence[1];
            var b = new KvSequence[1];
            dec.prefill(t.encode("def f(x):"), a);
            dec.prefill(t.encode("y ="), b);
            var ra = new KvSequence[1];
            var rb = new KvSequence[1];
            dec.prefill(t.encode("def f(x):"), ra);
            dec.prefill(t.encode("y ="), rb);
            int[] feedA = {'\n', ' ', ' ', 'r', 'e'};
            int[] feedB = {' ', '4', '2', ';', '\n'};
            var batch = dec.batch(List.of(a[0], b[0]));
            for (int step = 0; step < 5; step++) {
                if (step == 3) {
                    batch.release(); // regroup mid-way: caches come out and go back in
                    batch = dec.batch(List.of(a[0], b[0]));
                }
                float[][] both = batch.step(new int[] {feedA[step], feedB[step]});
                float[] aloneA = dec.step(List.of(ra[0]), new int[] {feedA[step]})[0];
                float[] aloneB = dec.step(List.of(rb[0]), new int[] {feedB[step]})[0];
                for (int i = 0; i < aloneA.length; i++) {
                    assertEquals(aloneA[i], both[0][i], 1e-4, "step " + step);
                    assertEquals(aloneB[i], both[1][i], 1e-4, "step " + step);
                }
            }
            batch.close();
            assertEquals(14, a[0].length());
            assertEquals(8, b[0].length());
        }
    }

    @Test
    void batchedDecodeEqualsEachSequenceAlone() {
        var m = Checkpoint.verify(checkpoint);
        try (var dec = new OrtDecoder(checkpoint.resolve(Checkpoint.ONNX), m.config(), 1)) {
            var t = new ByteTokenizer();
            var a = new KvSequence[1];
            var b = new KvSequence[1];
            dec.prefill(t.encode("hello world"), a);
            dec.prefill(t.encode("hi"), b);
            float[][] batched = dec.step(List.of(a[0], b[0]), new int[] {'!', '?'});
            var a2 = new KvSequence[1];
            var b2 = new KvSequence[1];
            dec.prefill(t.encode("hello world"), a2);
            dec.prefill(t.encode("hi"), b2);
            float[] aloneA = dec.step(List.of(a2[0]), new int[] {'!'})[0];
            float[] aloneB = dec.step(List.of(b2[0]), new int[] {'?'})[0];
            for (int i = 0; i < aloneA.length; i++) {
                assertEquals(aloneA[i], batched[0][i], 1e-4);
                assertEquals(aloneB[i], batched[1][i], 1e-4);
            }
            assertEquals(12, a[0].length());
            assertEquals(3, b[0].length());
        }
    }
}
