package ai.openalice.rl.model.hf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The reference forward pass on a one-layer model whose weights are chosen so that every step can
 * be followed by hand: RMSNorm, RoPE at position 1, two query heads sharing one KV head, SwiGLU.
 */
class ReferenceLmTest {
    /**
     * hidden 2, 2 query heads and 1 KV head of dim 2, vocabulary 2, MLP width 1; embeddings e0 = [1, 0],
     * e1 = [0, 1]; every norm weight 1; q of head 0, k and v the identity; q of head 1 zero; o sums
     * the heads; gate reads x0, up reads x1, down writes to h0; untied identity head.
     */
    static ReferenceLm handMade() {
        var json = TinyModels.config("llama").put("vocab_size", 2).put("hidden_size", 2).put("intermediate_size", 1).put("num_hidden_layers", 1)
                .put("num_attention_heads", 2).put("num_key_value_heads", 1).put("head_dim", 2).put("rms_norm_eps", 1e-300).put("rope_theta", 10000.0);
        HfConfig c = HfConfig.of(json, "hand-made");
        Map<String, float[]> w = new HashMap<>();
        String p = "model.layers.0.";
        w.put("model.embed_tokens.weight", new float[] {1, 0, 0, 1});
        w.put(p + "input_layernorm.weight", new float[] {1, 1});
        w.put(p + "self_attn.q_proj.weight", new float[] {1, 0, 0, 1, 0, 0, 0, 0}); // [4, 2]: head 0 = x, head 1 = 0
        w.put(p + "self_attn.k_proj.weight", new float[] {1, 0, 0, 1});
        w.put(p + "self_attn.v_proj.weight", new float[] {1, 0, 0, 1});
        w.put(p + "self_attn.o_proj.weight", new float[] {1, 0, 1, 0, 0, 1, 0, 1}); // [2, 4]: head 0 + head 1
        w.put(p + "post_attention_layernorm.weight", new float[] {1, 1});
        w.put(p + "mlp.gate_proj.weight", new float[] {1, 0});
        w.put(p + "mlp.up_proj.weight", new float[] {0, 1});
        w.put(p + "mlp.down_proj.weight", new float[] {1, 0});
        w.put("model.norm.weight", new float[] {1, 1});
        w.put("lm_head.weight", new float[] {1, 0, 0, 1});
        return new ReferenceLm(c, w);
    }

    @Test
    void logProbsWorkedOutByHand() {
        double r2 = Math.sqrt(2);
        // Position 0 (token 0): x = rms([1, 0]) = [√2, 0]; q0 = k0 = v0 = [√2, 0] (no rotation at 0). Each head attends
        // only to itself: head 0 and head 1 both output v0, so o = [2√2, 0] and h = [1 + 2√2, 0]. The MLP adds
        // silu(x0)·x1 = silu(√2)·0 = 0. Final norm: [√2, 0]; log p(1 | 0) = 0 − log(e^√2 + 1).
        double first = -Math.log(Math.exp(r2) + 1);
        // Position 1 (token 1): x = [0, √2]; q1 = k1 = v1 = [0, √2], rotated by 1 radian: [−√2 sin 1, √2 cos 1].
        // Head 0: scores q1·k0/√2 = −2 sin 1/√2 = −√2 sin 1 and q1·k1/√2 = 2/√2 = √2; weights p0, p1 = softmax.
        double s0 = -r2 * Math.sin(1);
        double p0 = Math.exp(s0) / (Math.exp(s0) + Math.exp(r2));
        double p1 = 1 - p0;
        // head 0 → p0·v0 + p1·v1 = [√2 p0, √2 p1]; head 1 (zero query: equal weights) → [√2/2, √2/2]; o sums them
        double h0 = r2 * p0 + r2 / 2;
        double h1 = 1 + r2 * p1 + r2 / 2;
        // MLP: x = rms(h); h0 += silu(x0)·x1
        double rms = Math.sqrt((h0 * h0 + h1 * h1) / 2);
        double x0 = h0 / rms;
        double x1 = h1 / rms;
        h0 += x0 / (1 + Math.exp(-x0)) * x1;
        // final norm, identity head, log-softmax at token 0
        double rms2 = Math.sqrt((h0 * h0 + h1 * h1) / 2);
        double f0 = h0 / rms2;
        double f1 = h1 / rms2;
        double second = f0 - Math.log(Math.exp(f0) + Math.exp(f1));

        assertArrayEquals(new double[] {first, second}, handMade().logProbs(new int[] {0, 1, 0}), 1e-12);
        assertEquals(-1.6318352839548387, first, 1e-12); // the same numbers from a calculator
        assertEquals(-1.2036359000478836, second, 1e-12);
    }
}
