package ai.openalice.rl.model.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDScope;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * AdamW (decoupled weight decay) with global gradient-norm clipping, on DJL NDArrays, updating the
 * parameters in place. Its state (first and second moments, step) exports to plain arrays for the
 * checkpoint and imports back to resume training exactly.
 */
public final class AdamW {
    private final double beta1;
    private final double beta2;
    private final double eps;
    private final double weightDecay;
    private final double clipNorm;
    private final Map<String, NDArray> m = new LinkedHashMap<>();
    private final Map<String, NDArray> v = new LinkedHashMap<>();
    private long step;

    public AdamW(double beta1, double beta2, double eps, double weightDecay, double clipNorm) {
        this.beta1 = beta1;
        this.beta2 = beta2;
        this.eps = eps;
        this.weightDecay = weightDecay;
        this.clipNorm = clipNorm;
    }

    public static AdamW defaults() {
        return new AdamW(0.9, 0.999, 1e-8, 0.01, 1.0);
    }

    public long step() {
        return step;
    }

    /**
     * One update at learning rate {@code lr} from the parameters' gradients, which it then zeroes;
     * returns the pre-clip gradient norm. A non-finite gradient is dropped without an update (the
     * norm returned says so). Its temporaries are freed on return (an {@code NDScope}),
     * so a trainer running for weeks does not grow.
     */
    public double update(Map<String, NDArray> params, double lr) {
        try (var scope = new NDScope()) {
            scope.suppressNotUsedWarning();
            return updateInScope(params, lr);
        }
    }

    private NDArray state(Map<String, NDArray> moments, String name, NDArray p) {
        return moments.computeIfAbsent(name, k -> {
            NDArray z = p.zerosLike();
            NDScope.unregister(z);
            return z;
        });
    }

    private double updateInScope(Map<String, NDArray> params, double lr) {
        double sq = 0;
        for (NDArray p : params.values()) {
            NDArray g = p.getGradient();
            sq += g.pow(2).sum().getFloat();
        }
        double norm = Math.sqrt(sq);
        if (!Double.isFinite(norm)) {
            // a NaN or infinite gradient would poison the weights and the moments for good: skip this update
            for (NDArray p : params.values()) {
                NDArray g = p.getGradient();
                g.set(new float[Math.toIntExact(g.size())]); // NaN − NaN is NaN: overwrite
            }
            return norm;
        }
        double scale = clipNorm > 0 && norm > clipNorm ? clipNorm / norm : 1.0;
        step++;
        double c1 = 1 - Math.pow(beta1, step);
        double c2 = 1 - Math.pow(beta2, step);
        for (var e : params.entrySet()) {
            NDArray p = e.getValue();
            NDArray g = p.getGradient().mul((float) scale);
            NDArray mi = state(m, e.getKey(), p);
            NDArray vi = state(v, e.getKey(), p);
            mi.muli((float) beta1).addi(g.mul((float) (1 - beta1)));
            vi.muli((float) beta2).addi(g.pow(2).mul((float) (1 - beta2)));
            NDArray update = mi.div((float) c1).div(vi.div((float) c2).sqrt().add((float) eps));
            if (weightDecay > 0 && isMatrix(e.getKey())) {
                p.muli((float) (1 - lr * weightDecay));
            }
            p.subi(update.mul((float) lr));
            p.getGradient().subi(p.getGradient());
        }
        return norm;
    }

    /** Weight decay applies to matrices and embeddings, not to biases and norm parameters (the built-in GPT's LayerNorm gamma/beta, HuggingFace's RMSNorm {@code *norm.weight}). */
    static boolean isMatrix(String name) {
        return !(name.endsWith(".bias") || name.endsWith(".gamma") || name.endsWith(".beta") || name.endsWith("norm.weight"));
    }

    /** The state as arrays ({@code <param>.m}, {@code <param>.v}) and the step, for a checkpoint. */
    public Map<String, float[]> export() {
        var out = new LinkedHashMap<String, float[]>();
        m.forEach((k, a) -> out.put(k + ".m", a.toFloatArray()));
        v.forEach((k, a) -> out.put(k + ".v", a.toFloatArray()));
        return out;
    }

    /** Restores a state exported by {@link #export} for these parameters. */
    public void restore(Map<String, float[]> state, long stepCount, Map<String, NDArray> params) {
        this.step = stepCount;
        for (var e : params.entrySet()) {
            float[] mm = state.get(e.getKey() + ".m");
            float[] vv = state.get(e.getKey() + ".v");
            if (mm != null && vv != null) {
                var shape = e.getValue().getShape();
                m.put(e.getKey(), e.getValue().getManager().create(mm, shape));
                v.put(e.getKey(), e.getValue().getManager().create(vv, shape));
            }
        }
    }
}
