package ai.openalice.rl.model.djl;

import ai.djl.ndarray.NDArray;
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

    /** log π(target | prefix) for every position: [B, T], for tokens and targets [B, T] (int64). */
    NDArray tokenLogprobs(NDArray tokens, NDArray targets, float temperature);

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
