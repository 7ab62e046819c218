package ai.openalice.rl.model.djl;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.Sampler;
import ai.openalice.rl.model.onnx.GptOnnxExport;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ONNX Runtime on the exported graph (KV cache) agrees with DJL: logits within 1e-4, greedy generations identical. */
class OnnxParityTest {
    static final GptConfig C = new GptConfig(48, 32, 2, 4, 32);
    static final OrtEnvironment ENV = OrtEnvironment.getEnvironment();
    @TempDir
    Path tmp;

    /** An ORT session on an exported model, and the KV cache of one batch. */
    static final class Ort implements AutoCloseable {
        final OrtSession session;
        float[][] pastK;
        float[][] pastV;
        int past;
        final int batch;

        Ort(Path model, int batch) throws Exception {
            var opts = new OrtSession.SessionOptions();
            opts.setIntraOpNumThreads(1);
            opts.setInterOpNumThreads(1);
            session = ENV.createSession(model.toString(), opts);
            this.batch = batch;
            pastK = new float[C.layers()][0];
            pastV = new float[C.layers()][0];
        }

        /** Feeds tokens [batch][s] at positions [batch][s] with a mask over past+s; returns logits [batch][s][V]. */
        float[][][] step(long[][] tokens, long[][] positions, long[][] mask) throws Exception {
            int s = tokens[0].length;
            var in = new HashMap<String, OnnxTensor>();
            in.put("input_ids", OnnxTensor.createTensor(ENV, tokens));
            in.put("position_ids", OnnxTensor.createTensor(ENV, positions));
            in.put("attention_mask", OnnxTensor.createTensor(ENV, mask));
            long[] kvShape = {batch, C.heads(), past, C.headSize()};
            long[] none = {batch, C.heads(), 0, C.headSize()};
            // the cache so far as the graph's recent part (its present is then the whole cache), the fixed past empty
            for (int l = 0; l < C.layers(); l++) {
                in.put("past_key_" + l, OnnxTensor.createTensor(ENV, FloatBuffer.allocate(0), none));
                in.put("past_value_" + l, OnnxTensor.createTensor(ENV, FloatBuffer.allocate(0), none));
                in.put("recent_key_" + l, OnnxTensor.createTensor(ENV, FloatBuffer.wrap(pastK[l]), kvShape));
                in.put("recent_value_" + l, OnnxTensor.createTensor(ENV, FloatBuffer.wrap(pastV[l]), kvShape));
            }
            try (var r = session.run(in)) {
                float[][][] logits = (float[][][]) r.get("logits").get().getValue();
                for (int l = 0; l < C.layers(); l++) {
                    pastK[l] = copy(((OnnxTensor) r.get("present_key_" + l).get()).getFloatBuffer());
                    pastV[l] = copy(((OnnxTensor) r.get("present_value_" + l).get()).getFloatBuffer());
                }
                past += s;
                return logits;
            } finally {
                in.values().forEach(OnnxTensor::close);
            }
        }

        private static float[] copy(FloatBuffer b) {
            float[] a = new float[b.remaining()];
            b.get(a);
            return a;
        }

        @Override
        public void close() throws OrtException {
            session.close();
        }
    }

    private static float[] djlLastLogits(Gpt gpt, List<Long> tokens) {
        long[] ids = tokens.stream().mapToLong(Long::longValue).toArray();
        NDArray logits = gpt.logits(gpt.manager().create(ids, new Shape(1, ids.length)));
        float[] all = logits.toFloatArray();
        float[] last = new float[C.vocabSize()];
        System.arraycopy(all, (ids.length - 1) * C.vocabSize(), last, 0, C.vocabSize());
        return last;
    }


    private static double maxAbsDiff(float[] a, float[] b) {
        double m = 0;
        for (int i = 0; i < a.length; i++) {
            m = Math.max(m, Math.abs(a[i] - b[i]));
        }
        return m;
    }

    private static long[][] row(long... v) {
        return new long[][] {v};
    }

    private static long[] range(int from, int to) {
        long[] r = new long[to - from];
        for (int i = 0; i < r.length; i++) {
            r[i] = from + i;
        }
        return r;
    }

    private static long[] ones(int n) {
        long[] r = new long[n];
        Arrays.fill(r, 1);
        return r;
    }

    /** Prompt through ORT, then greedy decode with the KV cache, against DJL recomputing everything. */
    private void assertGreedyParity(Gpt gpt, Path model, int steps) throws Exception {
        List<Long> seq = new ArrayList<>(List.of(3L, 14L, 15L, 9L, 2L, 6L));
        try (var ort = new Ort(model, 1)) {
            int n = seq.size();
            float[][][] logits = ort.step(row(seq.stream().mapToLong(Long::longValue).toArray()), row(range(0, n)), row(ones(n)));
            for (int t = 0; t < steps; t++) {
                float[] ortLast = logits[0][logits[0].length - 1];
                float[] djlLast = djlLastLogits(gpt, seq);
                assertTrue(maxAbsDiff(ortLast, djlLast) < 1e-4, "step " + t + ": |ORT − DJL| = " + maxAbsDiff(ortLast, djlLast));
                int next = Sampler.argmax(ortLast);
                assertEquals(Sampler.argmax(djlLast), next, "greedy token at step " + t);
                seq.add((long) next);
                int pos = seq.size() - 1;
                logits = ort.step(row(next), row(pos), row(ones(pos + 1)));
            }
        }
    }

    @Test
    void randomWeightsAgreeThroughPromptAndCachedDecode() throws Exception {
        try (Gpt gpt = Gpt.initialise(C, 7)) {
            Path model = tmp.resolve("model.onnx");
            GptOnnxExport.export(C, gpt.snapshot(), model, "test", Long.MAX_VALUE);
            assertGreedyParity(gpt, model, 20);
        }
    }

    @Test
    void aTrainedModelAgreesAndExternalDataLoads() throws Exception {
        try (Gpt gpt = Gpt.initialise(C, 8)) {
            var m = gpt.manager();
            NDArray tokens = m.create(new long[] {3, 14, 15, 9, 2, 6, 5, 3}, new Shape(1, 8));
            NDArray targets = m.create(new long[] {14, 15, 9, 2, 6, 5, 3, 5}, new Shape(1, 8));
            for (int step = 0; step < 30; step++) {
                try (var gc = Engine.getInstance().newGradientCollector()) {
                    gc.backward(gpt.tokenLogprobs(tokens, targets, 1f).mean().neg());
                }
                for (NDArray p : gpt.parameters().values()) {
                    p.subi(p.getGradient().mul(0.3f));
                    p.getGradient().subi(p.getGradient());
                }
            }
            Path model = tmp.resolve("trained.onnx");
            GptOnnxExport.export(C, gpt.snapshot(), model, "test", 0); // every weight as external data
            // every matrix is outside (LayerNorm vectors under 1 KiB stay inline): over 95% of the weights' bytes
            assertTrue(Files.size(tmp.resolve("trained.onnx.data")) > 0.95 * 4L * C.parameterCount());
            assertTrue(Files.size(model) < 64 * 1024, "weights are outside the .onnx file");
            assertGreedyParity(gpt, model, 12);
        }
    }

    @Test
    void paddedBatchMatchesEachSequenceAlone() throws Exception {
        try (Gpt gpt = Gpt.initialise(C, 9)) {
            Path model = tmp.resolve("model.onnx");
            GptOnnxExport.export(C, gpt.snapshot(), model, "test", Long.MAX_VALUE);
            // Two prompts of lengths 5 and 3, the second left-padded to 5 (pad positions masked out).
            long[] a = {1, 2, 3, 4, 5};
            long[] b = {0, 0, 7, 8, 9};
            try (var ort = new Ort(model, 2)) {
                float[][][] logits = ort.step(new long[][] {a, b}, new long[][] {range(0, 5), {0, 0, 0, 1, 2}},
                        new long[][] {ones(5), {0, 0, 1, 1, 1}});
                assertTrue(maxAbsDiff(logits[0][4], djlLastLogits(gpt, List.of(1L, 2L, 3L, 4L, 5L))) < 1e-4);
                assertTrue(maxAbsDiff(logits[1][4], djlLastLogits(gpt, List.of(7L, 8L, 9L))) < 1e-4);
                // one decode step for both, the cache carrying the padding along
                float[][][] next = ort.step(new long[][] {{6}, {10}}, new long[][] {{5}, {3}}, new long[][] {ones(6), {0, 0, 1, 1, 1, 1}});
                assertTrue(maxAbsDiff(next[0][0], djlLastLogits(gpt, List.of(1L, 2L, 3L, 4L, 5L, 6L))) < 1e-4);
                assertTrue(maxAbsDiff(next[1][0], djlLastLogits(gpt, List.of(7L, 8L, 9L, 10L))) < 1e-4);
            }
        }
    }

}
