package ai.openalice.rl.events;

import java.util.List;

/**
 * One think→act→observe turn. {@code promptDeltaTokenIds} are the tokens appended to the context
 * after the previous turn's completion (system prompt and problem for turn 0, then the
 * observation), so the full prompt of turn t is every earlier delta and completion followed by
 * this delta. {@code logprobs} are the sampling log-probs of the completion tokens.
 */
public record Turn(
        int index,
        List<Integer> promptDeltaTokenIds,
        List<Integer> completionTokenIds,
        List<Double> logprobs,
        long policyVersion,
        Action action,
        String observation,
        long policyMs,
        long toolMs) {

    public Turn {
        promptDeltaTokenIds = List.copyOf(promptDeltaTokenIds);
        completionTokenIds = List.copyOf(completionTokenIds);
        logprobs = List.copyOf(logprobs);
        if (logprobs.size() != completionTokenIds.size()) {
            throw new IllegalArgumentException("turn " + index + ": " + logprobs.size() + " logprobs for "
                    + completionTokenIds.size() + " completion tokens");
        }
    }
}
