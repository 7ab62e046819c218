package ai.openalice.rl.model.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.openalice.rl.model.checkpoint.Manifest;
import java.nio.file.Path;
import java.util.Map;

/**
 * A causal LM the learner trains: the built-in {@link Gpt}, or a HuggingFace-family model
 * ({@link ai.openalice.rl.model.djl.HfLm}), full or through a LoRA adapter.
 */
public interface CausalLm extends AutoCloseable {
    /** The manager that owns the weights; a step's arrays live in sub-managers of it. */
    NDManager manager();

    /** The parameters that receive gradients and optimizer state, by name (with LoRA: only A and B). */
    Map<String, NDArray> parameters();

    /** Logits [B, T, V] for tokens [B, T] (int64), positions 0..T−1. */
    NDArray logits(NDArray tokens);

    /**
     * log π(target | prefix) for every position: [B, T], for tokens and targets [B, T] (int64), as
     * one graph (the whole pass kept for a backward); {@link LeanPass} computes the same in blocks.
     */
    default NDArray tokenLogprobs(NDArray tokens, NDArray targets, float temperature) {
        NDArray h = embed(tokens);
        for (int l = 0; l < depth(); l++) {
            h = layer(l, h);
        }
        return headLogprobs(h, targets, temperature);
    }

    /** h₀ [B, T, D] for tokens [B, T] (int64): the token embeddings (and the built-in model's positions). */
    NDArray embed(NDArray tokens);

    /** Whether {@link #embed}'s weights receive gradients (not under LoRA, whose base is frozen). */
    boolean embeddingsTrain();

    /** The number of decoder layers. */
    int depth();

    /**
     * Decoder layer {@code l}'s keys and values for its input h [B, k, D] (positions 0..k−1): K and
     * V, each [B, KV heads, k, head size], positions applied as the family does (rotary).
     */
    NDList keysValues(int l, NDArray h);

    /**
     * Decoder layer {@code l}'s output [B, n, D] for its input rows [B, n, D] at positions
     * from..from+n−1, attending over the keys and values {@code kv} of positions 0..from+n−1 (a
     * causal layer's rows read nothing later).
     */
    NDArray layer(int l, NDArray rows, NDList kv, int from);

    /** Decoder layer {@code l}'s output for the whole of its input h [B, T, D]. */
    default NDArray layer(int l, NDArray h) {
        return layer(l, h, keysValues(l, h), 0);
    }

    /**
     * log π(target) [B, n] for last-layer rows h [B, n, D] and their targets [B, n] (int64): the
     * final norm, the output head, logits ÷ temperature, then the target's logit minus the
     * log-sum-exp (a gather, not a one-hot over the vocabulary).
     */
    NDArray headLogprobs(NDArray h, NDArray targets, float temperature);

    /** Attention heads per layer (query heads), for sizing attention blocks. */
    int attentionHeads();

    /** The vocabulary's size, for sizing output-head blocks. */
    int vocabSize();

    /** The longest sequence the model takes. */
    int contextLength();

    /**
     * Writes the model as a checkpoint into {@code dir} with the optimizer's state; {@code tokenizer}
     * names the built-in model's tokenizer (a HuggingFace model carries its own).
     */
    Manifest save(Path dir, String tokenizer, long policyVersion, long step,
            Map<String, float[]> optimizer, long optimizerStep);

    /** The trainable parameters' values, by name (copies). */
    Map<String, float[]> snapshot();

    @Override
    void close();
}
