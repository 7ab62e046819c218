package ai.openalice.rl.model.train;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.core.loss.PolicyLoss;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.core.loss.TokenBatch;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The learner's NDArray loss and its gradient w.r.t. each token's log-prob equal rl-core's reference on the same numbers. */
class LossParityTest {

    @Test
    void lossAndGradientMatchTheReference() {
        int b = 6;
        int t = 20;
        var rnd = new Random(3);
        float[] lp = new float[b * t];
        float[] old = new float[b * t];
        float[] rollout = new float[b * t];
        float[] adv = new float[b * t];
        boolean[] mask = new boolean[b * t];
        for (int i = 0; i < b * t; i++) {
            old[i] = (float) (-rnd.nextDouble() * 3);
            lp[i] = (float) (old[i] + rnd.nextGaussian() * 0.3);
            rollout[i] = (float) (old[i] + rnd.nextGaussian() * 0.2);
            adv[i] = (float) rnd.nextGaussian();
            mask[i] = rnd.nextDouble() < 0.8;
        }
        int[] offsets = new int[b + 1];
        for (int s = 0; s <= b; s++) {
            offsets[s] = s * t;
        }
        for (PolicyLossConfig cfg : new PolicyLossConfig[] {PolicyLossConfig.grpoPlusPlus(t), PolicyLossConfig.grpoPlusPlus(t).withDualClip(3)
                .withAggregation(Aggregation.TOKEN_MEAN)}) {
            var ref = PolicyLoss.compute(new TokenBatch(offsets, d(lp), d(old), d(rollout), null, null, d(adv), mask), cfg);
            double[] coef = cfg.aggregation().coefficients(offsets, mask, cfg.maxLength());
            try (NDManager m = NDManager.newBaseManager()) {
                var shape = new Shape(b, t);
                var logp = m.create(lp, shape);
                logp.setRequiresGradient(true);
                float[] coefF = new float[coef.length];
                for (int i = 0; i < coef.length; i++) {
                    coefF[i] = (float) coef[i];
                }
                float loss;
                try (var gc = Engine.getInstance().newGradientCollector()) {
                    var l = PolicyGradientLoss.loss(logp, m.create(old, shape), m.create(rollout, shape), m.create(adv, shape),
                            m.create(coefF, shape), cfg);
                    gc.backward(l);
                    loss = l.getFloat();
                }
                assertEquals(ref.loss(), loss, 1e-5);
                float[] grad = logp.getGradient().toFloatArray();
                for (int i = 0; i < grad.length; i++) {
                    assertEquals(ref.gradLogprobs()[i], grad[i], 1e-5, "token " + i);
                }
            }
        }
    }

    private static double[] d(float[] f) {
        double[] out = new double[f.length];
        for (int i = 0; i < f.length; i++) {
            out[i] = f[i];
        }
        return out;
    }
}
