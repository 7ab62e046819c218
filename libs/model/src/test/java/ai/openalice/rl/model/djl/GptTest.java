package ai.openalice.rl.model.djl;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;
import ai.openalice.rl.model.GptConfig;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GptTest {
    static final GptConfig TINY = new GptConfig(32, 16, 2, 2, 16);

    @Test
    void shapesAndParameterCount() {
        try (Gpt gpt = Gpt.initialise(TINY, 1)) {
            NDArray tokens = gpt.manager().create(new long[] {1, 2, 3, 4, 5, 6}, new Shape(2, 3));
            assertEquals(new Shape(2, 3, 32), gpt.logits(tokens).getShape());
            long counted = gpt.parameters().values().stream().mapToLong(p -> p.getShape().size()).sum();
            assertEquals(TINY.parameterCount(), counted);
        }
    }

    @Test
    void logitsAtAPositionDoNotSeeLaterTokens() {
        try (Gpt gpt = Gpt.initialise(TINY, 2)) {
            var m = gpt.manager();
            float[] a = gpt.logits(m.create(new long[] {3, 1, 4, 1, 5}, new Shape(1, 5))).toFloatArray();
            float[] b = gpt.logits(m.create(new long[] {3, 1, 4, 9, 2}, new Shape(1, 5))).toFloatArray();
            // positions 0..2 (first 3 × 32 logits) are identical; position 3 differs
            assertArrayEquals(Arrays.copyOf(a, 96), Arrays.copyOf(b, 96), 1e-6f);
            assertNotEquals(a[3 * 32], b[3 * 32]);
        }
    }

    @Test
    void tokenLogprobsAreLogSoftmaxOfTheTarget() {
        try (Gpt gpt = Gpt.initialise(TINY, 3)) {
            var m = gpt.manager();
            NDArray tokens = m.create(new long[] {1, 2, 3}, new Shape(1, 3));
            NDArray targets = m.create(new long[] {2, 3, 4}, new Shape(1, 3));
            float[] lp = gpt.tokenLogprobs(tokens, targets, 1f).toFloatArray();
            float[] logits = gpt.logits(tokens).toFloatArray();
            for (int t = 0; t < 3; t++) {
                double max = Double.NEGATIVE_INFINITY;
                for (int v = 0; v < 32; v++) {
                    max = Math.max(max, logits[t * 32 + v]);
                }
                double z = 0;
                for (int v = 0; v < 32; v++) {
                    z += Math.exp(logits[t * 32 + v] - max);
                }
                double expected = logits[t * 32 + (t + 2)] - max - Math.log(z);
                assertEquals(expected, lp[t], 1e-5);
            }
        }
    }

    @Test
    void gradientDescentLearnsASequence() {
        try (Gpt gpt = Gpt.initialise(TINY, 4)) {
            var m = gpt.manager();
            NDArray tokens = m.create(new long[] {1, 5, 9, 13, 17, 21, 25}, new Shape(1, 7));
            NDArray targets = m.create(new long[] {5, 9, 13, 17, 21, 25, 29}, new Shape(1, 7));
            float first = 0;
            float last = 0;
            for (int step = 0; step < 60; step++) {
                try (var gc = Engine.getInstance().newGradientCollector()) {
                    NDArray loss = gpt.tokenLogprobs(tokens, targets, 1f).mean().neg();
                    gc.backward(loss);
                    if (step == 0) {
                        first = loss.getFloat();
                    }
                    last = loss.getFloat();
                }
                for (NDArray p : gpt.parameters().values()) {
                    p.subi(p.getGradient().mul(0.5f));
                    p.getGradient().subi(p.getGradient());
                }
            }
            // uniform over 32 tokens is ln 32 ≈ 3.47 nats; memorising 7 transitions must get far below
            assertTrue(first > 3.0f, "initial loss " + first);
            assertTrue(last < 0.5f, "loss after 60 steps " + last);
        }
    }

    @Test
    void positionEmbeddingsStartAsScaledSinusoids() {
        try (Gpt gpt = Gpt.initialise(TINY, 3)) {
            float[] wpe = gpt.parameters().get("wpe").toFloatArray();
            int w = TINY.width();
            double scale = 0.02 * Math.sqrt(2); // 0.028284
            assertEquals(0.0, wpe[0], 1e-7, "sin(0)");
            assertEquals(scale, wpe[1], 1e-7, "cos(0)");
            assertEquals(scale * Math.sin(1), wpe[w], 1e-7, "position 1, ω_0 = 1: 0.028284 × 0.841471");
            assertEquals(scale * Math.cos(Math.pow(10000, -2.0 / w)), wpe[w + 3], 1e-7, "position 1, ω_1 = 10000^(-2/width)");
        }
    }
}
