package ai.openalice.rl.model.hf;

import java.io.IOException;
import java.util.Map;

/**
 * The forward pass of an {@link HfConfig} model written out plainly in double precision, one
 * position at a time, with nothing cached or fused: the oracle the tensor-engine implementations
 * (the DJL learner, the ONNX export) are held to, and small enough to read against the families'
 * definitions. Not for serving: it recomputes every position's keys and values for each sequence.
 */
public final class ReferenceLm {
    private final HfConfig c;
    private final Map<String, float[]> w;
    private final double[] inv;

    public ReferenceLm(HfConfig config, Map<String, float[]> weights) {
        this.c = config;
        this.w = weights;
        this.inv = Rope.inverseFrequencies(config.headDim(), config.ropeTheta(), config.ropeScaling());
    }

    /** Reads every tensor of {@code model} into memory (small models only). */
    public static ReferenceLm of(HfModel model) throws IOException {
        return new ReferenceLm(model.config(), model.floats());
    }

    /** {@code out[i] = log p(tokens[i+1] | tokens[0..i])}, for i < n − 1. */
    public double[] logProbs(int[] tokens) {
        double[][] logits = logits(tokens);
        double[] out = new double[tokens.length - 1];
        for (int i = 0; i < out.length; i++) {
            out[i] = logSoftmax(logits[i])[tokens[i + 1]];
        }
        return out;
    }

    /** The logits at every position. */
    public double[][] logits(int[] tokens) {
        int n = tokens.length;
        double[][] h = new double[n][];
        for (int t = 0; t < n; t++) {
            if (tokens[t] < 0 || tokens[t] >= c.vocabSize()) {
                throw new IllegalArgumentException("token " + tokens[t] + " at " + t + " is outside the vocabulary of " + c.vocabSize());
            }
            h[t] = row(w.get("model.embed_tokens.weight"), tokens[t], c.hiddenSize());
        }
        for (int l = 0; l < c.layers(); l++) {
            layer(h, "model.layers." + l + ".");
        }
        String head = c.tieWordEmbeddings() ? "model.embed_tokens.weight" : "lm_head.weight";
        double[][] logits = new double[n][];
        for (int t = 0; t < n; t++) {
            logits[t] = linear(w.get(head), rmsNorm(h[t], 0, c.hiddenSize(), w.get("model.norm.weight")), c.vocabSize(), c.hiddenSize(), null);
        }
        return logits;
    }

    private void layer(double[][] h, String p) {
        int n = h.length;
        int hd = c.headDim();
        double[][] k = new double[n][];
        double[][] v = new double[n][];
        double[][] q = new double[n][];
        for (int t = 0; t < n; t++) {
            double[] x = rmsNorm(h[t], 0, c.hiddenSize(), w.get(p + "input_layernorm.weight"));
            q[t] = linear(w.get(p + "self_attn.q_proj.weight"), x, c.qWidth(), c.hiddenSize(), w.get(p + "self_attn.q_proj.bias"));
            k[t] = linear(w.get(p + "self_attn.k_proj.weight"), x, c.kvWidth(), c.hiddenSize(), w.get(p + "self_attn.k_proj.bias"));
            v[t] = linear(w.get(p + "self_attn.v_proj.weight"), x, c.kvWidth(), c.hiddenSize(), w.get(p + "self_attn.v_proj.bias"));
            for (int head = 0; head < c.heads(); head++) {
                if (c.qkNorm()) {
                    normInPlace(q[t], head * hd, hd, w.get(p + "self_attn.q_norm.weight"));
                }
                Rope.rotate(q[t], head * hd, t, inv);
            }
            for (int head = 0; head < c.kvHeads(); head++) {
                if (c.qkNorm()) {
                    normInPlace(k[t], head * hd, hd, w.get(p + "self_attn.k_norm.weight"));
                }
                Rope.rotate(k[t], head * hd, t, inv);
            }
        }
        int group = c.heads() / c.kvHeads();
        for (int t = 0; t < n; t++) {
            double[] attended = new double[c.qWidth()];
            for (int head = 0; head < c.heads(); head++) {
                int kv = head / group * hd;
                double[] scores = new double[t + 1];
                for (int j = 0; j <= t; j++) {
                    double s = 0;
                    for (int d = 0; d < hd; d++) {
                        s += q[t][head * hd + d] * k[j][kv + d];
                    }
                    scores[j] = s / Math.sqrt(hd);
                }
                double[] p2 = softmax(scores);
                for (int j = 0; j <= t; j++) {
                    for (int d = 0; d < hd; d++) {
                        attended[head * hd + d] += p2[j] * v[j][kv + d];
                    }
                }
            }
            add(h[t], linear(w.get(p + "self_attn.o_proj.weight"), attended, c.hiddenSize(), c.qWidth(), w.get(p + "self_attn.o_proj.bias")));
        }
        for (int t = 0; t < n; t++) {
            double[] x = rmsNorm(h[t], 0, c.hiddenSize(), w.get(p + "post_attention_layernorm.weight"));
            double[] gate = linear(w.get(p + "mlp.gate_proj.weight"), x, c.intermediateSize(), c.hiddenSize(), null);
            double[] up = linear(w.get(p + "mlp.up_proj.weight"), x, c.intermediateSize(), c.hiddenSize(), null);
            for (int i = 0; i < gate.length; i++) {
                gate[i] = gate[i] / (1 + Math.exp(-gate[i])) * up[i]; // silu(gate) · up
            }
            add(h[t], linear(w.get(p + "mlp.down_proj.weight"), gate, c.hiddenSize(), c.intermediateSize(), null));
        }
    }

    /** {@code x[off, off+len) / sqrt(mean(x²) + eps) · weight}. */
    private double[] rmsNorm(double[] x, int off, int len, float[] weight) {
        double ss = 0;
        for (int i = 0; i < len; i++) {
            ss += x[off + i] * x[off + i];
        }
        double scale = 1 / Math.sqrt(ss / len + c.rmsNormEps());
        double[] out = new double[len];
        for (int i = 0; i < len; i++) {
            out[i] = x[off + i] * scale * weight[i];
        }
        return out;
    }

    private void normInPlace(double[] x, int off, int len, float[] weight) {
        System.arraycopy(rmsNorm(x, off, len, weight), 0, x, off, len);
    }

    /** {@code W·x + b} for W stored [out, in] row-major. */
    private static double[] linear(float[] weight, double[] x, int out, int in, float[] bias) {
        double[] y = new double[out];
        for (int o = 0; o < out; o++) {
            double s = bias == null ? 0 : bias[o];
            for (int i = 0; i < in; i++) {
                s += weight[o * in + i] * x[i];
            }
            y[o] = s;
        }
        return y;
    }

    private static double[] row(float[] m, int r, int width) {
        double[] out = new double[width];
        for (int i = 0; i < width; i++) {
            out[i] = m[r * width + i];
        }
        return out;
    }

    private static void add(double[] into, double[] x) {
        for (int i = 0; i < into.length; i++) {
            into[i] += x[i];
        }
    }

    static double[] softmax(double[] x) {
        double max = Double.NEGATIVE_INFINITY;
        for (double v : x) {
            max = Math.max(max, v);
        }
        double sum = 0;
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = Math.exp(x[i] - max);
            sum += out[i];
        }
        for (int i = 0; i < x.length; i++) {
            out[i] /= sum;
        }
        return out;
    }

    /** log-softmax of float logits, in double precision. */
    public static double[] logSoftmax(float[] logits) {
        double[] x = new double[logits.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = logits[i];
        }
        return logSoftmax(x);
    }

    public static double[] logSoftmax(double[] x) {
        double max = Double.NEGATIVE_INFINITY;
        for (double v : x) {
            max = Math.max(max, v);
        }
        double sum = 0;
        for (double v : x) {
            sum += Math.exp(v - max);
        }
        double lse = max + Math.log(sum);
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = x[i] - lse;
        }
        return out;
    }
}
