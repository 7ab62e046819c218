package ai.openalice.rl.model.onnx;

import ai.openalice.rl.model.onnx.OnnxGraph.Attribute;
import java.util.List;

/**
 * What every exported decoder graph shares, whatever the model: the inputs and outputs of the
 * KV-cache interface ({@link CacheLayout}) and the attention bias from the causal order and the
 * padding mask.
 */
final class KvCacheIo {
    private KvCacheIo() {}

    /** input_ids, position_ids [B,S], attention_mask [B,P+S], past_key_l / past_value_l [B, heads, P, headDim]. */
    static void inputs(OnnxGraph g, int layers, long heads, long headDim) {
        g.input("input_ids", OnnxGraph.INT64, "batch", "seq");
        g.input("position_ids", OnnxGraph.INT64, "batch", "seq");
        g.input("attention_mask", OnnxGraph.INT64, "batch", "total");
        for (int l = 0; l < layers; l++) {
            g.input("past_key_" + l, OnnxGraph.FLOAT, "batch", heads, "past", headDim);
            g.input("past_value_" + l, OnnxGraph.FLOAT, "batch", heads, "past", headDim);
        }
    }

    /** logits [B,S,V], present_key_l / present_value_l [B, heads, P+S, headDim]. */
    static void outputs(OnnxGraph g, int layers, long heads, long headDim, long vocab) {
        g.output("logits", OnnxGraph.FLOAT, "batch", "seq", vocab);
        for (int l = 0; l < layers; l++) {
            g.output("present_key_" + l, OnnxGraph.FLOAT, "batch", heads, "total", headDim);
            g.output("present_value_" + l, OnnxGraph.FLOAT, "batch", heads, "total", headDim);
        }
    }

    /**
     * The additive attention bias: 0 where new token i (position P+i) may read key j (j ≤ P+i and
     * not padding), −1e9 elsewhere; shaped [S, P+S] broadcast against the padding mask unsqueezed at
     * {@code padAxes} (so it lines up with the scores' leading dimensions).
     */
    static String maskBias(OnnxGraph g, String padAxesName, long... padAxes) {
        String zero = g.scalar("c_zero", 0L);
        String one = g.scalar("c_one", 1L);
        String two = g.scalar("c_two", 2L);
        String past = g.op("Gather", List.of(g.op("Shape", List.of("past_key_0")), two), new Attribute.Int("axis", 0));
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
