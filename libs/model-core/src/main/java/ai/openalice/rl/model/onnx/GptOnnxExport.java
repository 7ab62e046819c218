package ai.openalice.rl.model.onnx;

import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.onnx.OnnxGraph.Attribute;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Exports the built-in GPT as one ONNX graph (opset 17) with a KV cache, serving both the prompt
 * and each decode step.
 *
 * <pre>
 * inputs   input_ids [B,S] int64, position_ids [B,S] int64, attention_mask [B,P+S] int64 (1 = token, 0 = padding),
 *          past_key_l / past_value_l [B,H,P,hd] float (P = 0 for the prompt)
 * outputs  logits [B,S,V], present_key_l / present_value_l [B,H,P+S,hd]
 * </pre>
 *
 * New token i (absolute position P+i) attends to cached and new keys j ≤ P+i whose mask is 1;
 * the arithmetic is that of {@code Gpt.logits} (libs/model) (same additive −1e9 mask, exact GELU, LayerNorm ε).
 */
public final class GptOnnxExport {
    private GptOnnxExport() {}

    public static void export(GptConfig c, Map<String, float[]> params, Path file, String version, long externalThreshold) throws IOException {
        OnnxWriter.write(graph(c, params), file, version, externalThreshold);
    }

    static OnnxGraph graph(GptConfig c, Map<String, float[]> params) {
        var g = new OnnxGraph("alice_gpt");
        int d = c.width();
        int h = c.heads();
        int hd = c.headSize();
        KvCacheIo.inputs(g, c.layers(), h, hd);
        for (String name : c.parameterNames()) {
            g.floats(name, c.shape(name), params.get(name));
        }
        // Mask bias [B,1,S,P+S]: 0 where allowed, -1e9 elsewhere.
        String bias = KvCacheIo.maskBias(g, "c_axes12", 1L, 2L);

        String x = g.op("Add", List.of(g.op("Gather", List.of("wte", "input_ids"), new Attribute.Int("axis", 0)),
                g.op("Gather", List.of("wpe", "position_ids"), new Attribute.Int("axis", 0))));
        String headShape = g.longs("c_head_shape", 0, 0, h, hd);
        String mergeShape = g.longs("c_merge_shape", 0, 0, -1);
        String qkvSplit = g.longs("c_qkv_split", d, d, d);
        String scale = g.scalar("c_scale", (float) (1.0 / Math.sqrt(hd)));
        String split = KvCacheIo.splitSizes(g);
        var cache = new KvCacheIo.Heads(t -> t, new long[] {0, 1, 3, 2}, scale);
        for (int l = 0; l < c.layers(); l++) {
            String p = "h" + l + ".";
            String ln1 = layerNorm(g, x, p + "ln1");
            String qkv = g.op("Add", List.of(g.op("MatMul", List.of(ln1, p + "attn.qkv")), p + "attn.qkv.bias"));
            List<String> parts = g.opN("Split", List.of(qkv, qkvSplit), 3, new Attribute.Int("axis", 2));
            String q = heads(g, parts.get(0), headShape);
            String k = heads(g, parts.get(1), headShape);
            String v = heads(g, parts.get(2), headShape);
            String y = g.op("Reshape", List.of(g.op("Transpose", List.of(KvCacheIo.attend(g, l, q, k, v, bias, split, cache)),
                    new Attribute.Ints("perm", new long[] {0, 2, 1, 3})), mergeShape));
            x = g.op("Add", List.of(x, g.op("Add", List.of(g.op("MatMul", List.of(y, p + "attn.proj")), p + "attn.proj.bias"))));
            String ln2 = layerNorm(g, x, p + "ln2");
            String hid = g.op("Add", List.of(g.op("MatMul", List.of(ln2, p + "mlp.in")), p + "mlp.in.bias"));
            x = g.op("Add", List.of(x, g.op("Add", List.of(g.op("MatMul", List.of(gelu(g, hid), p + "mlp.out")), p + "mlp.out.bias"))));
        }
        String out = layerNorm(g, x, "lnf");
        String wteT = g.op("Transpose", List.of("wte"), new Attribute.Ints("perm", new long[] {1, 0}));
        g.opTo("MatMul", List.of(out, wteT), List.of("logits"));

        KvCacheIo.outputs(g, c.layers(), h, hd, c.vocabSize());
        return g;
    }

    private static String heads(OnnxGraph g, String x, String headShape) {
        return g.op("Transpose", List.of(g.op("Reshape", List.of(x, headShape))), new Attribute.Ints("perm", new long[] {0, 2, 1, 3}));
    }

    private static String layerNorm(OnnxGraph g, String x, String name) {
        return g.op("LayerNormalization", List.of(x, name + ".gamma", name + ".beta"), new Attribute.Int("axis", -1),
                new Attribute.Float("epsilon", GptConfig.LAYER_NORM_EPS));
    }

    /** Exact GELU: 0.5·x·(1 + erf(x/√2)). */
    private static String gelu(OnnxGraph g, String x) {
        String sqrt2 = g.scalar("c_sqrt2", (float) Math.sqrt(2));
        String erf = g.op("Erf", List.of(g.op("Div", List.of(x, sqrt2))));
        String half = g.scalar("c_half", 0.5f);
        String oneF = g.scalar("c_onef", 1f);
        return g.op("Mul", List.of(g.op("Mul", List.of(x, half)), g.op("Add", List.of(erf, oneF))));
    }
}
