package ai.openalice.rl.model;

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
}
