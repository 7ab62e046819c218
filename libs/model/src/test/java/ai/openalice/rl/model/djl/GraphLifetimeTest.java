package ai.openalice.rl.model.djl;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.core.loss.KlEstimator;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.train.PolicyGradientLoss;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every tensor the autograd graph keeps for the backward pass must stay valid until the backward
 * pass, whatever the Java garbage collector does in between. DJL's {@code x.mul(0.5f)} builds its
 * scalar from a Java direct buffer and closes it straight away; the graph keeps the tensor, the
 * collector frees the buffer, and the backward pass reads freed memory (in the trainer service:
 * NaN or huge gradient norms with an identical loss, then a SIGSEGV in libc). Here the collector
 * runs between forward and backward, and the freed chunks are refilled with NaN, as a busy service
 * would: the gradients must equal those of an undisturbed pass, bit for bit.
 */
class GraphLifetimeTest {
    private static final GptConfig SMALL = new GptConfig(40, 24, 2, 2, 16);

    @Test
    void supervisedGradientsSurviveAGarbageCollectionBeforeBackward() throws Exception {
        check(PolicyGradientLoss::nll);
    }

    @Test
    void policyGradientsSurviveAGarbageCollectionBeforeBackward() throws Exception {
        var config = new PolicyLossConfig(0.2, 0.28, 3.0, Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, 24, 0, KlEstimator.K3, 0, 2.0);
        check((logp, mask) -> {
            NDManager m = mask.getManager();
            NDArray old = logp.stopGradient().add(m.full(logp.getShape(), 0.1f));
            NDArray advantages = m.full(logp.getShape(), -0.5f);
            return PolicyGradientLoss.loss(logp, old, old.sub(m.full(logp.getShape(), 0.05f)), advantages, mask, config);
        });
    }

    private static void check(BiFunction<NDArray, NDArray, NDArray> lossOf) throws Exception {
        try (Gpt gpt = Gpt.initialise(SMALL, 11)) {
            Map<String, float[]> calm = gradients(gpt, lossOf, () -> {});
            Map<String, float[]> disturbed = gradients(gpt, lossOf, GraphLifetimeTest::collectAndRefill);
            for (var e : calm.entrySet()) {
                for (float g : e.getValue()) {
                    assertTrue(Float.isFinite(g), e.getKey() + " has a non-finite gradient in the undisturbed pass");
                }
                assertArrayEquals(e.getValue(), disturbed.get(e.getKey()), 0f, e.getKey());
            }
        }
    }

    private static Map<String, float[]> gradients(Gpt gpt, BiFunction<NDArray, NDArray, NDArray> lossOf, Runnable between) {
        var rnd = new Random(5);
        long[] in = new long[2 * 24];
        long[] tg = new long[2 * 24];
        float[] mask = new float[2 * 24];
        for (int i = 0; i < in.length; i++) {
            in[i] = rnd.nextInt(40);
            tg[i] = rnd.nextInt(40);
            mask[i] = i % 24 < 8 ? 0 : 1;
        }
        JniUtils.setGradMode(false);
        var out = new LinkedHashMap<String, float[]>();
        try (NDManager sub = gpt.manager().newSubManager(); var scope = new NDScope()) {
            scope.suppressNotUsedWarning();
            var shape = new Shape(2, 24);
            try (var gc = Engine.getInstance().newGradientCollector()) {
                NDArray logp = gpt.tokenLogprobs(sub.create(in, shape), sub.create(tg, shape), 0.9f);
                NDArray loss = lossOf.apply(logp, sub.create(mask, shape));
                between.run();
                gc.backward(loss);
            }
            for (var e : gpt.parameters().entrySet()) {
                NDArray g = e.getValue().getGradient();
                out.put(e.getKey(), g.toFloatArray());
                g.subi(g);
            }
        }
        return out;
    }

    /** Runs the collector until it has freed the direct buffers nobody references, then takes their memory back, full of NaN. */
    private static void collectAndRefill() {
        List<ByteBuffer> hold = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            System.gc();
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            for (int i = 0; i < 20_000; i++) {
                var b = ByteBuffer.allocateDirect(4 << (i % 3)).order(ByteOrder.nativeOrder());
                while (b.remaining() >= 4) {
                    b.putFloat(Float.NaN);
                }
                hold.add(b);
            }
        }
        HOLD.add(hold);
    }

    private static final List<Object> HOLD = new ArrayList<>();
}
