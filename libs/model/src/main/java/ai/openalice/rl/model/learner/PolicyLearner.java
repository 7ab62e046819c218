package ai.openalice.rl.model.learner;

import ai.openalice.rl.model.checkpoint.Manifest;
import java.nio.file.Path;

/**
 * What the trainer asks of a learner: a batch in, step statistics out, and a checkpoint of the
 * weights and optimizer state on request. {@link Learner} implements it on DJL for the built-in GPT
 * and the HuggingFace families; an existing distributed training engine can stand behind the same
 * interface for models that need many GPUs.
 */
public interface PolicyLearner extends AutoCloseable {
    /** A GRPO++ step on a batch with advantages. */
    Learner.StepStats rl(SequenceBatch batch);

    /** A supervised step (warm start), the context tokens at {@code contextWeight} of a completion token. */
    Learner.StepStats sft(SequenceBatch batch, double contextWeight);

    /** The longest sequence the model takes. */
    int contextLength();

    /** Writes the model and the optimizer state as a checkpoint into {@code dir} (which must not exist). */
    Manifest checkpoint(Path dir, String tokenizer, long policyVersion, long step);

    @Override
    void close();
}
