package ai.openalice.rl.model.onnx;

import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.hf.HfConfig;

/**
 * What a decoder needs to know of an exported model's KV cache: {@code layers} pairs of
 * {@code past_key_l}/{@code past_value_l} of shape [B, kvHeads, P, headDim], the vocabulary the
 * logits span and the longest context. The built-in GPT caches every head; a grouped-query model
 * only its KV heads.
 */
public record CacheLayout(int layers, int kvHeads, int headDim, int vocabSize, int contextLength) {
    public static CacheLayout of(GptConfig c) {
        return new CacheLayout(c.layers(), c.heads(), c.headSize(), c.vocabSize(), c.contextLength());
    }

    public static CacheLayout of(HfConfig c) {
        return new CacheLayout(c.layers(), c.kvHeads(), c.headDim(), c.vocabSize(), c.maxPositions());
    }

    /** Bytes of cache per position: keys and values of every layer, float32. */
    public long bytesPerPosition() {
        return 2L * layers * kvHeads * headDim * Float.BYTES;
    }
}
