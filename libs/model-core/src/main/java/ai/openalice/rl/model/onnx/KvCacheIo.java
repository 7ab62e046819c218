package ai.openalice.rl.model.onnx;

import ai.openalice.rl.model.onnx.OnnxGraph.Attribute;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * What every exported decoder graph shares, whatever the model: the inputs and outputs of the
 * KV-cache interface ({@link CacheLayout}), the attention bias from the causal order and the
 * padding mask, and attention over a cache held in two parts.
 *
 * <p>The cache comes in as a long {@code past_*} the graph only reads and a short {@code recent_*}
 * it extends by the new positions and returns as {@code present_*}. A decoder keeps the past as it
 * is step after step and feeds each step's present back as the next recent, merging the two now
 * and then: a step then copies the recent part, not the whole cache (which {@code present =
 * Concat(past, new)} did, half of an 8-stream step at 2,000 tokens). A caller with the cache in one
 * piece passes it as the past and an empty recent.
 */
final class KvCacheIo {
    private KvCacheIo() {}

    /**
     * input_ids, position_ids [B,S], attention_mask [B,P+R+S], past_key_l / past_value_l [B, heads,
     * P, headDim], recent_key_l / recent_value_l [B, heads, R, headDim].
     */
    static void inputs(OnnxGraph g, int layers, long heads, long headDim) {
        g.input("input_ids", OnnxGraph.INT64, "batch", "seq");
        g.input("position_ids", OnnxGraph.INT64, "batch", "seq");
        g.input("attention_mask", OnnxGraph.INT64, "batch", "total");
        for (int l = 0; l < layers; l++) {
            g.input("past_key_" + l, OnnxGraph.FLOAT, "batch", heads, "past", headDim);
            g.input("past_value_" + l, OnnxGraph.FLOAT, "batch", heads, "past", headDim);
            g.input("recent_key_" + l, OnnxGraph.FLOAT, "batch", heads, "recent", headDim);
            g.input("recent_value_" + l, OnnxGraph.FLOAT, "batch", heads, "recent", headDim);
        }
    }

    /** logits [B,S,V], present_key_l / present_value_l [B, heads, R+S, headDim]: the recent part and the new positions. */
    static void outputs(OnnxGraph g, int layers, long heads, long headDim, long vocab) {
        g.output("logits", OnnxGraph.FLOAT, "batch", "seq", vocab);
        for (int l = 0; l < layers; l++) {
            g.output("present_key_" + l, OnnxGraph.FLOAT, "batch", heads, "fresh", headDim);
            g.output("present_value_" + l, OnnxGraph.FLOAT, "batch", heads, "fresh", headDim);
        }
    }

    /** How a layer's cache tensors [B, kvHeads, T, hd] are shaped to meet its queries, and its queries' scale. */
    record Heads(UnaryOperator<String> cache, long[] transposeLast, String scale) {}

    /**
     * Layer {@code l}'s attention of {@code q} over the past, the recent part and the new {@code k},
     * {@code v} (in heads: [B, kvHeads, S, hd]): present_key_l / present_value_l are the recent part
     * extended by them; the softmax runs over the past's and the present's scores together (so it is
     * the attention over the cache in one piece), and the result is the two parts' weighted values
     * added. {@code split} is {@link #splitSizes}.
     */
    static String attend(OnnxGraph g, int l, String q, String k, String v, String bias, String split, Heads heads) {
        String kNow = "present_key_" + l;
        String vNow = "present_value_" + l;
        g.opTo("Concat", List.of("recent_key_" + l, k), List.of(kNow), new Attribute.Int("axis", 2));
        g.opTo("Concat", List.of("recent_value_" + l, v), List.of(vNow), new Attribute.Int("axis", 2));
        String sPast = g.op("MatMul", List.of(q, g.op("Transpose", List.of(heads.cache().apply("past_key_" + l)),
                new Attribute.Ints("perm", heads.transposeLast()))));
        String sNow = g.op("MatMul", List.of(q, g.op("Transpose", List.of(heads.cache().apply(kNow)), new Attribute.Ints("perm", heads.transposeLast()))));
        String scores = g.op("Add", List.of(g.op("Mul", List.of(g.op("Concat", List.of(sPast, sNow), new Attribute.Int("axis", -1)), heads.scale())), bias));
        List<String> att = g.opN("Split", List.of(g.op("Softmax", List.of(scores), new Attribute.Int("axis", -1)), split), 2, new Attribute.Int("axis", -1));
        return g.op("Add", List.of(g.op("MatMul", List.of(att.get(0), heads.cache().apply("past_value_" + l))),
                g.op("MatMul", List.of(att.get(1), heads.cache().apply(vNow)))));
    }

    /** [P, R+S]: where the scores' last axis splits between the past and the present. */
    static String splitSizes(OnnxGraph g) {
        String two = g.longs("c_axis2_index", 2L);
        String past = g.op("Gather", List.of(g.op("Shape", List.of("past_key_0")), two), new Attribute.Int("axis", 0));
        String recent = g.op("Gather", List.of(g.op("Shape", List.of("recent_key_0")), two), new Attribute.Int("axis", 0));
        String seq = g.op("Gather", List.of(g.op("Shape", List.of("input_ids")), g.longs("c_axis1_index", 1L)), new Attribute.Int("axis", 0));
        return g.op("Concat", List.of(past, g.op("Add", List.of(recent, seq))), new Attribute.Int("axis", 0));
    }

    /**
     * The additive attention bias: 0 where new token i (position P+R+i) may read key j (j ≤ P+R+i and
     * not padding), −1e9 elsewhere; shaped [S, P+R+S] broadcast against the padding mask unsqueezed at
     * {@code padAxes} (so it lines up with the scores' leading dimensions).
     */
    static String maskBias(OnnxGraph g, String padAxesName, long... padAxes) {
        String zero = g.scalar("c_zero", 0L);
        String one = g.scalar("c_one", 1L);
        String two = g.scalar("c_two", 2L);
        String past = g.op("Add", List.of(g.op("Gather", List.of(g.op("Shape", List.of("past_key_0")), two), new Attribute.Int("axis", 0)),
                g.op("Gather", List.of(g.op("Shape", List.of("recent_key_0")), two), new Attribute.Int("axis", 0))));
        String seq = g.op("Gather", List.of(g.op("Shape", List.of("input_ids")), one), new Attribute.Int("axis", 0));
        String total = g.op("Add", List.of(past, seq));
        String qIdx = g.op("Range", List.of(past, total, one));
        String kIdx = g.op("Range", List.of(zero, total, one));
        String causal = g.op("LessOrEqual", List.of(g.op("Unsqueeze", List.of(kIdx, g.longs("c_axes0", 0L))),
                g.op("Unsqueeze", List.of(qIdx, g.longs("c_axes1", 1L)))));
        String notPad = g.op("Unsqueeze", List.of(g.op("Cast", List.of("attention_mask"), new Attribute.Int("to", OnnxGraph.BOOL)),
                g.longs(padAxesName, padAxes)));
        return g.op("Where", List.of(g.op("And", List.of(causal, notPad)), g.scalar("c_fzero", 0f), g.scalar("c_masked", -1e9f)));
    }
}
