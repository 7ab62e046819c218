package ai.openalice.rl.policy;

/** Generated tokens, their sampling log-probs, the text, why it stopped, and which policy version produced it. */
public record Completion(int[] tokens, double[] logprobs, String text, FinishReason finish, long policyVersion) {

    public Completion {
        tokens = tokens.clone();
        logprobs = logprobs.clone();
        if (tokens.length != logprobs.length) {
            throw new IllegalArgumentException(tokens.length + " tokens but " + logprobs.length + " log-probs");
        }
    }

    /** Why generation stopped. */
    public enum FinishReason {
        /** A stop string or the end-of-sequence token. */
        STOP,
        /** max_tokens. */
        LENGTH,
        /** The model's context is full. */
        CONTEXT
    }
}
