package ai.openalice.rl.policy;

/**
 * Generates the next turn of an agent: a completion of a token context with sampling parameters,
 * returning the tokens, their log-probs under the sampling policy, the text and the policy
 * version that produced them. Implementations: in-process ONNX Runtime, the inference service or
 * any OpenAI-compatible server over HTTP.
 */
public interface Policy extends AutoCloseable {

    String name();

    /** A completion; {@link PolicyException} when the policy itself failed (not the request's content). */
    Completion complete(CompletionRequest request);

    @Override
    default void close() {}
}
