package ai.openalice.rl.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.util.Map;

/**
 * A causal LM the learner trains: the built-in {@link Gpt}, or a HuggingFace-family model
 * ({@link ai.openalice.rl.model.hf.HfLm}), full or through a LoRA adapter.
 */
public interface CausalLm extends AutoCloseable {
    /** The manager that owns the weights; a step's arrays live in sub-managers of it. */
    NDManager manager();

    /** The parameters that receive gradients and optimizer state, by name (with LoRA: only A and B). */
    Map<String, NDArray> parameters();

    /** Logits [B, T, V] for tokens [B, T] (int64), positions 0..T−1. */
    NDArray logits(NDArray tokens);

    /** log π(target | prefix) for every position: [B, T], for tokens and targets [B, T] (int64). */
    NDArray tokenLogprobs(NDArray tokens, NDArray targets, float temperature);

    /** The longest sequence the model takes. */
    int contextLength();

    /** The trainable parameters' values, by name (copies). */
    Map<String, float[]> snapshot();

    @Override
    void close();
}
