package ai.openalice.rl.inference.engine;

import java.nio.file.Path;
import java.util.List;

/**
 * A GPU serving engine the inference service keeps in step with the trainer: it loads each
 * checkpoint (full weights, or a LoRA adapter under a name) and samples completions of token ids.
 * Implementations speak exactly the engines' documented HTTP endpoints.
 */
public interface ServingEngine {

    String name();

    /** Replaces the served weights with the HuggingFace folder {@code dir}, labelled {@code version}. */
    void loadFull(long version, Path dir);

    /** Serves the PEFT adapter folder {@code dir} beside the others, under {@code name}. */
    void loadAdapter(String name, Path dir);

    void unloadAdapter(String name);

    /** A completion from the base weights ({@code adapter} null) or through the adapter named. */
    Completion complete(Request r, String adapter);

    /** What is asked of the engine. */
    record Request(int[] prompt, int maxTokens, double temperature, double topP, Long seed, List<String> stop) {}

    /** What it answered: the sampled ids and their log-probs, the text, {@code stop} or {@code length}, the prompt's length. */
    record Completion(int[] tokens, double[] logprobs, String text, String finishReason, int promptTokens) {
        public Completion {
            if (tokens.length != logprobs.length) {
                throw new EngineException("the engine answered " + tokens.length + " tokens but " + logprobs.length + " log-probs", false);
            }
        }
    }
}
