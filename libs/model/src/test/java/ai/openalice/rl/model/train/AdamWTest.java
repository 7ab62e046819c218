package ai.openalice.rl.model.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AdamWTest {

    private static double stepOnQuadratic(AdamW opt, Map<String, NDArray> params, double lr) {
        try (var gc = Engine.getInstance().newGradientCollector()) {
            NDArray p = params.get("w");
            gc.backward(p.pow(2).sum()); // loss = Σ w², gradient 2w
        }
        return opt.update(params, lr);
    }

    @Test
    void firstStepsByHand() {
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray w = m.create(new float[] {1f, -2f});
            w.setRequiresGradient(true);
            var params = new LinkedHashMap<String, NDArray>(Map.of("w", w));
            var opt = new AdamW(0.9, 0.999, 1e-8, 0.0, 0.0);
            // step 1: g = (2, −4); m̂ = g, v̂ = g² → update = g/|g| = (1, −1); w = (1, −2) − 0.1·(1, −1) = (0.9, −1.9)
            double norm = stepOnQuadratic(opt, params, 0.1);
            assertEquals(Math.sqrt(4 + 16), norm, 1e-5);
            assertArrayEquals(new float[] {0.9f, -1.9f}, w.toFloatArray(), 1e-6f);
            // step 2: g = (1.8, −3.8); m = 0.9·0.2 + 0.1·1.8 = 0.36 (first coord), m̂ = 0.36/0.19;
            // v = 0.999·0.004 + 0.001·3.24 = 0.007236, v̂ = 0.007236/0.001999 ; w₁ = 0.9 − 0.1·m̂/√v̂
            double mhat = 0.36 / (1 - 0.81);
            double vhat = (0.999 * 0.004 + 0.001 * 3.24) / (1 - 0.999 * 0.999);
            stepOnQuadratic(opt, params, 0.1);
            assertEquals(0.9 - 0.1 * mhat / (Math.sqrt(vhat) + 1e-8), w.toFloatArray()[0], 1e-5);
        }
    }

    @Test
    void clippingAndResumeFromExportedState() {
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray a = m.create(new float[] {3f, 4f});
            a.setRequiresGradient(true);
            var pa = new LinkedHashMap<String, NDArray>(Map.of("w", a));
            var opt = new AdamW(0.9, 0.999, 1e-8, 0.0, 1.0);
            stepOnQuadratic(opt, pa, 0.05);
            stepOnQuadratic(opt, pa, 0.05);
            // A second optimizer restored from the first one's state continues identically.
            NDArray b = m.create(a.toFloatArray());
            b.setRequiresGradient(true);
            var pb = new LinkedHashMap<String, NDArray>(Map.of("w", b));
            var resumed = new AdamW(0.9, 0.999, 1e-8, 0.0, 1.0);
            resumed.restore(opt.export(), opt.step(), pb);
            stepOnQuadratic(opt, pa, 0.05);
            stepOnQuadratic(resumed, pb, 0.05);
            assertArrayEquals(a.toFloatArray(), b.toFloatArray(), 1e-7f);
            assertEquals(3, resumed.step());
        }
    }

    @Test
    void aNonFiniteGradientIsDroppedWithoutTouchingWeightsOrMoments() {
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray w = m.create(new float[] {1f, -2f});
            w.setRequiresGradient(true);
            var params = new LinkedHashMap<String, NDArray>(Map.of("w", w));
            var opt = new AdamW(0.9, 0.999, 1e-8, 0.0, 0.0);
            try (var gc = Engine.getInstance().newGradientCollector()) {
                gc.backward(w.mul(Float.NaN).sum()); // the gradient is NaN everywhere
            }
            assertEquals(Double.NaN, opt.update(params, 0.1));
            assertArrayEquals(new float[] {1f, -2f}, w.toFloatArray(), 0f);
            assertEquals(0, opt.step(), "no step counted");
            // the next, finite step proceeds as a first step would: w = (1, −2) − 0.1·(1, −1)
            stepOnQuadratic(opt, params, 0.1);
            assertArrayEquals(new float[] {0.9f, -1.9f}, w.toFloatArray(), 1e-6f);
        }
    }
}
