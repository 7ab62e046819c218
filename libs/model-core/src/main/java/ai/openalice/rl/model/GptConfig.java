package ai.openalice.rl.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The architecture of the built-in GPT-style decoder: pre-LayerNorm blocks of causal
 * self-attention and a GELU MLP (4× width), learned position embeddings, output projection tied
 * to the token embedding.
 */
public record GptConfig(int vocabSize, int contextLength, int layers, int heads, int width) {
    public static final float LAYER_NORM_EPS = 1e-5f;

    public GptConfig {
        if (vocabSize < 2 || contextLength < 2 || layers < 1 || heads < 1 || width < heads || width % heads != 0) {
            throw new IllegalArgumentException("invalid GPT config " + vocabSize + "/" + contextLength + "/" + layers + "/" + heads + "/"
                    + width + ": width must be a positive multiple of heads");
        }
    }

    public int headSize() {
        return width / heads;
    }

    /** Number of trainable scalars. */
    public long parameterCount() {
        long perLayer = 2L * width * 2 + (long) width * 3 * width + 3L * width + (long) width * width + width
                + (long) width * 4 * width + 4L * width + 4L * width * width + width;
        return (long) vocabSize * width + (long) contextLength * width + layers * perLayer + 2L * width;
    }

    /** Every parameter's name, in a fixed order: the training model, the checkpoint and the ONNX export read them so. */
    public List<String> parameterNames() {
        var names = new ArrayList<String>(List.of("wte", "wpe"));
        for (int l = 0; l < layers; l++) {
            String p = "h" + l + ".";
            names.addAll(List.of(p + "ln1.gamma", p + "ln1.beta", p + "attn.qkv", p + "attn.qkv.bias", p + "attn.proj", p + "attn.proj.bias",
                    p + "ln2.gamma", p + "ln2.beta", p + "mlp.in", p + "mlp.in.bias", p + "mlp.out", p + "mlp.out.bias"));
        }
        names.addAll(List.of("lnf.gamma", "lnf.beta"));
        return names;
    }

    /** The shape of a parameter: matrices are [in, out] (x · W). */
    public long[] shape(String name) {
        long d = width;
        String n = name.contains(".") && name.startsWith("h") ? name.substring(name.indexOf('.') + 1) : name;
        return switch (n) {
            case "wte" -> new long[] {vocabSize, d};
            case "wpe" -> new long[] {contextLength, d};
            case "ln1.gamma", "ln1.beta", "ln2.gamma", "ln2.beta", "lnf.gamma", "lnf.beta", "attn.proj.bias", "mlp.out.bias" -> new long[] {d};
            case "attn.qkv" -> new long[] {d, 3 * d};
            case "attn.qkv.bias" -> new long[] {3 * d};
            case "attn.proj" -> new long[] {d, d};
            case "mlp.in" -> new long[] {d, 4 * d};
            case "mlp.in.bias" -> new long[] {4 * d};
            case "mlp.out" -> new long[] {4 * d, d};
            default -> throw new IllegalArgumentException("unknown parameter " + name);
        };
    }
}
