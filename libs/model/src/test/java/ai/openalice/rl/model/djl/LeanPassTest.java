package ai.openalice.rl.model.djl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.model.hf.TinyModels;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The blocked, recomputing pass ({@link LeanPass}) against the whole-graph pass as the learner ran
 * it before: logits of every position, log-softmax over the whole vocabulary times a one-hot of the
 * target, one backward. Blocks of 16 rows over 40 positions (three query blocks and three head
 * blocks, the last short) for the built-in model and every HuggingFace family, full and LoRA; the
 * log-probabilities and the loss agree within 1e-6, and every entry of every trainable parameter's
 * gradient within float32's summation bound ({@link #SUMMATION_BOUND}) of the gradient's size (its
 * L2 norm, where that exceeds 1): float32 sums taken in another order differ by some units in the
 * last place of the largest terms.
 */
class LeanPassTest {
    static final int T = 40;
    static final int B = 2;
    /**
     * How far two float32 sums of the same B × T terms may lie apart, relative to their size:
     * n·u for n terms and float32's unit roundoff u = 2^-24 (the bound on recursive summation's
     * error, Higham, Accuracy and Stability of Numerical Algorithms, 4.2), about 4.8e-6 here. A
     * gradient entry sums one term per position, in another order in each pass; an absolute 1e-6
     * held on one machine and not on another (1.5e-6 on a layer norm's weight, whose entries are
     * near 1), whose CPU took other vector paths.
     */
    static final double SUMMATION_BOUND = B * T * Math.pow(2, -24);

    /** A loss whose gradient depends on the log-probs themselves (not only a weighted sum of them). */
    static final Function<NDArray, NDArray> LOSS = logp -> {
        float[] coef = new float[B * T];
        var rnd = new Random(11);
        for (int i = 0; i < coef.length; i++) {
            coef[i] = (float) rnd.nextGaussian();
        }
        NDArray c = logp.getManager().create(coef, logp.getShape());
        return logp.mul(c).sum().add(Scalars.square(logp).mean());
    };

    @Test
    void theBuiltInModelAgreesWithTheWholeGraph() {
        try (Gpt gpt = Gpt.initialise(new GptConfig(37, 48, 2, 4, 32), 5)) {
            agree(gpt, 1f, "gpt");
            agree(gpt, 0.7f, "gpt at temperature 0.7");
        }
    }

    @Test
    void everyHuggingFaceFamilyAgreesWithTheWholeGraph() {
        for (ObjectNode json : HfLmTest.variants()) {
            HfConfig c = HfConfig.of(json, json.toString());
            try (HfLm lm = HfLm.full(c, TinyModels.randomWeights(c, 3))) {
                agree(lm, 1f, json.toString());
            }
        }
    }

    @Test
    void aLoraAdapterAgreesWithTheWholeGraph() {
        for (String type : new String[] {"llama", "qwen3"}) {
            var json = TinyModels.config(type);
            HfConfig c = HfConfig.of(json, type);
            var init = LoraAdapter.initialise(new LoraConfig(4, 8, List.of("q_proj", "v_proj", "down_proj"), null, false, null), c, 1);
            var rnd = new Random(2);
            init.b().values().forEach(b -> {
                for (int i = 0; i < b.length; i++) {
                    b[i] = (float) (0.2 * rnd.nextGaussian()); // a trained adapter: a zero B gives A no gradient
                }
            });
            try (HfLm lm = HfLm.withAdapter(c, TinyModels.randomWeights(c, 8), init)) {
                agree(lm, 0.9f, type + " LoRA");
            }
        }
    }

    private static void agree(CausalLm lm, float temperature, String what) {
        JniUtils.setGradMode(false);
        try (NDScope scope = new NDScope(); NDManager m = lm.manager().newSubManager()) {
            scope.suppressNotUsedWarning();
            var rnd = new Random(7);
            long[] in = new long[B * T];
            long[] out = new long[B * T];
            for (int i = 0; i < in.length; i++) {
                in[i] = rnd.nextInt(lm.vocabSize());
                out[i] = rnd.nextInt(lm.vocabSize());
            }
            var shape = new Shape(B, T);
            NDArray tokens = m.create(in, shape);
            NDArray targets = m.create(out, shape);

            float[] wholeLogp;
            float wholeLoss;
            try (var gc = Engine.getInstance().newGradientCollector()) {
                NDArray logits = lm.logits(tokens);
                if (temperature != 1f) {
                    logits = Scalars.div(logits, temperature);
                }
                NDArray logp = logits.logSoftmax(-1).mul(targets.oneHot(lm.vocabSize(), DataType.FLOAT32)).sum(new int[] {-1});
                NDArray loss = LOSS.apply(logp);
                gc.backward(loss);
                wholeLogp = logp.toFloatArray();
                wholeLoss = loss.getFloat();
            }
            Map<String, float[]> wholeGrads = takeGradients(lm);

            var lean = new LeanPass(lm, 1); // every block at its least: 16 rows
            var result = lean.backward(tokens, targets, temperature, LOSS);
            Map<String, float[]> leanGrads = takeGradients(lm);
            float[] noGraph = lean.logprobs(tokens, targets, temperature).toFloatArray();
            close(wholeLogp, result.logprobs(), 1e-6, what + ": log-probs");
            close(wholeLogp, noGraph, 1e-6, what + ": log-probs without a graph");
            assertEquals(wholeLoss, result.loss(), 1e-6 * Math.max(1, Math.abs(wholeLoss)), what + ": loss");
            assertEquals(wholeGrads.keySet(), leanGrads.keySet());
            for (var e : wholeGrads.entrySet()) {
                float[] w = e.getValue();
                double norm = 0;
                boolean any = false;
                for (float v : w) {
                    norm += (double) v * v;
                    any |= v != 0;
                }
                assertTrue(any, what + ": " + e.getKey() + " has a gradient to compare");
                close(w, leanGrads.get(e.getKey()), SUMMATION_BOUND * Math.max(1, Math.sqrt(norm)), what + ": gradient of " + e.getKey());
            }
        }
    }

    /** Every trainable parameter's gradient (copied), each then set to zero. */
    private static Map<String, float[]> takeGradients(CausalLm lm) {
        var out = new LinkedHashMap<String, float[]>();
        for (var e : lm.parameters().entrySet()) {
            NDArray g = e.getValue().getGradient();
            out.put(e.getKey(), g.toFloatArray());
            g.set(new float[Math.toIntExact(g.size())]);
        }
        return out;
    }

    private static void close(float[] expected, float[] actual, double tolerance, String what) {
        assertEquals(expected.length, actual.length, what);
        double worst = 0;
        for (int i = 0; i < expected.length; i++) {
            worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
        }
        assertTrue(worst <= tolerance, what + ": largest difference " + worst + " > " + tolerance);
    }
}
