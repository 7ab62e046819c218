package ai.openalice.rl.model.onnx;

import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.Rope;
import ai.openalice.rl.model.onnx.OnnxGraph.Attribute;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Exports a Llama-, Qwen2- or Qwen3-family model ({@link HfConfig}) as one ONNX graph (opset 17)
 * with a KV cache, with the inputs and outputs of {@link GptOnnxExport} — so the same decoder
 * serves it — except that the cache holds the KV heads only: past/present [B, kvHeads, P, head_dim]
 * ({@link CacheLayout}). RoPE angles are computed in the graph from {@code position_ids}
 * (float32, as the families' own code does); query heads read their KV head by broadcasting
 * [B, kv, group, S, hd] against [B, kv, 1, T, hd], without copying the cache per query head.
 * Linear weights are stored transposed ([in, out]) under {@code <module>.weight.T}.
 */
public final class HfOnnxExport {
    private HfOnnxExport() {}

    public static void export(HfConfig c, Map<String, float[]> weights, Path file, String version, long externalThreshold) throws IOException {
        OnnxWriter.write(graph(c, weights), file, version, externalThreshold);
    }

    static OnnxGraph graph(HfConfig c, Map<String, float[]> w) {
        var g = new OnnxGraph("alice_hf_" + c.modelType());
        int kv = c.kvHeads();
        int hd = c.headDim();
        KvCacheIo.inputs(g, c.layers(), kv, hd);
        c.tensors().forEach((name, shape) -> {
            if (shape.length == 2 && !name.equals("model.embed_tokens.weight")) {
                g.floats(name + ".T", new long[] {shape[1], shape[0]}, transpose(w.get(name), (int) shape[0], (int) shape[1]));
            } else {
                g.floats(name, shape, w.get(name));
            }
        });
        var k = new Consts(g, c);
        String bias = KvCacheIo.maskBias(g, "c_axes123", 1L, 2L, 3L); // [B, 1, 1, S, P+S]: the scores are [B, kv, group, S, P+S]
        String[] rope = k.rope();
        String h = g.op("Gather", List.of("model.embed_tokens.weight", "input_ids"), new Attribute.Int("axis", 0));
        for (int l = 0; l < c.layers(); l++) {
            String p = "model.layers." + l + ".";
            h = g.op("Add", List.of(h, attention(k, l, rmsNorm(g, h, p + "input_layernorm.weight", k.eps), bias, rope)));
            String x = rmsNorm(g, h, p + "post_attention_layernorm.weight", k.eps);
            String gate = linear(g, x, p + "mlp.gate_proj", false);
            String silu = g.op("Mul", List.of(gate, g.op("Sigmoid", List.of(gate))));
            h = g.op("Add", List.of(h, linear(g, g.op("Mul", List.of(silu, linear(g, x, p + "mlp.up_proj", false))), p + "mlp.down_proj", false)));
        }
        String out = rmsNorm(g, h, "model.norm.weight", k.eps);
        String head = c.tieWordEmbeddings() ? g.op("Transpose", List.of("model.embed_tokens.weight"), new Attribute.Ints("perm", new long[] {1, 0}))
                : "lm_head.weight.T";
        g.opTo("MatMul", List.of(out, head), List.of("logits"));
        KvCacheIo.outputs(g, c.layers(), kv, hd, c.vocabSize());
        return g;
    }

    /**
     * Layer {@code l}'s attention over its normalised input {@code x}: q, k, v (with Qwen2's bias,
     * Qwen3's q/k norm), RoPE, attention over the cache ({@link KvCacheIo#attend}), and grouped
     * query heads reading their KV head by broadcasting.
     */
    private static String attention(Consts k, int l, String x, String bias, String[] rope) {
        OnnxGraph g = k.g;
        HfConfig c = k.c;
        int kv = c.kvHeads();
        int hd = c.headDim();
        String p = "model.layers." + l + ".";
        String q = g.op("Reshape", List.of(linear(g, x, p + "self_attn.q_proj", c.qkvBias()), g.longs("c_q_shape", 0, 0, c.heads(), hd)));
        String key = g.op("Reshape", List.of(linear(g, x, p + "self_attn.k_proj", c.qkvBias()), k.kvShape));
        String v = g.op("Reshape", List.of(linear(g, x, p + "self_attn.v_proj", c.qkvBias()), k.kvShape));
        if (c.qkNorm()) {
            q = rmsNorm(g, q, p + "self_attn.q_norm.weight", k.eps);
            key = rmsNorm(g, key, p + "self_attn.k_norm.weight", k.eps);
        }
        q = rotate(g, heads(g, q), rope, k);
        key = rotate(g, heads(g, key), rope, k);
        // [B, H, S, hd] → [B, kv, group, S, hd] against [B, kv, 1, T, hd]: head i reads KV head i / group
        String q5 = g.op("Reshape", List.of(q, g.longs("c_q5_shape", 0, kv, c.heads() / kv, -1, hd)));
        String y = KvCacheIo.attend(g, l, q5, key, heads(g, v), bias, k.split, k.heads);
        y = g.op("Reshape", List.of(y, g.longs("c_heads_shape", 0, c.heads(), -1, hd)));
        y = g.op("Reshape", List.of(g.op("Transpose", List.of(y), new Attribute.Ints("perm", new long[] {0, 2, 1, 3})), k.mergeShape));
        return linear(g, y, p + "self_attn.o_proj", c.oBias());
    }

    /** The graph's shared constants and the sub-graphs every layer uses once computed. */
    private static final class Consts {
        final OnnxGraph g;
        final HfConfig c;
        final String eps;
        final String scale;
        final String kvShape;
        final String mergeShape;
        final String axis2;
        final String split;
        final KvCacheIo.Heads heads;

        Consts(OnnxGraph g, HfConfig c) {
            this.g = g;
            this.c = c;
            eps = g.scalar("c_eps", (float) c.rmsNormEps());
            scale = g.scalar("c_scale", (float) (1.0 / Math.sqrt(c.headDim())));
            kvShape = g.longs("c_kv_shape", 0, 0, c.kvHeads(), c.headDim());
            mergeShape = g.longs("c_merge_shape", 0, 0, -1);
            axis2 = g.longs("c_axes2", 2L);
            split = KvCacheIo.splitSizes(g);
            heads = new KvCacheIo.Heads(t -> g.op("Unsqueeze", List.of(t, axis2)), new long[] {0, 1, 2, 4, 3}, scale);
        }

        /** cos and sin [B, 1, S, head_dim] of the positions, each frequency twice (the rotate-half layout). */
        String[] rope() {
            double[] inv = Rope.inverseFrequencies(c.headDim(), c.ropeTheta(), c.ropeScaling());
            float[] twice = new float[c.headDim()];
            for (int i = 0; i < inv.length; i++) {
                twice[i] = twice[i + inv.length] = (float) inv[i];
            }
            String freqs = g.floats("c_inv_freq", new long[] {c.headDim()}, twice);
            String pos = g.op("Unsqueeze", List.of(g.op("Cast", List.of("position_ids"), new Attribute.Int("to", OnnxGraph.FLOAT)), g.longs("c_axes_last", -1L)));
            String angles = g.op("Unsqueeze", List.of(g.op("Mul", List.of(pos, freqs)), g.longs("c_axes_head", 1L)));
            return new String[] {g.op("Cos", List.of(angles)), g.op("Sin", List.of(angles))};
        }
    }

    /** [B, S, N, hd] → [B, N, S, hd]. */
    private static String heads(OnnxGraph g, String x) {
        return g.op("Transpose", List.of(x), new Attribute.Ints("perm", new long[] {0, 2, 1, 3}));
    }

    /** x·cos + rotate_half(x)·sin for x [B, N, S, hd]. */
    private static String rotate(OnnxGraph g, String x, String[] rope, Consts k) {
        int half = k.c.headDim() / 2;
        List<String> halves = g.opN("Split", List.of(x, g.longs("c_rope_split", half, half)), 2, new Attribute.Int("axis", -1));
        String rotated = g.op("Concat", List.of(g.op("Neg", List.of(halves.get(1))), halves.get(0)), new Attribute.Int("axis", -1));
        return g.op("Add", List.of(g.op("Mul", List.of(x, rope[0])), g.op("Mul", List.of(rotated, rope[1]))));
    }

    private static String linear(OnnxGraph g, String x, String module, boolean bias) {
        String y = g.op("MatMul", List.of(x, module + ".weight.T"));
        return bias ? g.op("Add", List.of(y, module + ".bias")) : y;
    }

    /** x / sqrt(mean(x²) + eps) · weight over the last axis. */
    private static String rmsNorm(OnnxGraph g, String x, String weight, String eps) {
        String ms = g.op("ReduceMean", List.of(g.op("Mul", List.of(x, x))), new Attribute.Ints("axes", new long[] {-1}), new Attribute.Int("keepdims", 1));
        return g.op("Mul", List.of(g.op("Div", List.of(x, g.op("Sqrt", List.of(g.op("Add", List.of(ms, eps)))))), weight));
    }

    static float[] transpose(float[] m, int rows, int cols) {
        float[] t = new float[m.length];
        for (int r = 0; r < rows; r++) {
            for (int col = 0; col < cols; col++) {
                t[col * rows + r] = m[r * cols + col];
            }
        }
        return t;
    }
}
