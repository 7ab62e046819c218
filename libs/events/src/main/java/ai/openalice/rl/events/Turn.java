package ai.openalice.rl.events;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One think→act→observe turn. {@code promptDeltaTokenIds} are the tokens appended to the context
 * after the previous turn's completion (system prompt and problem for turn 0, then the
 * observation), so the full prompt of turn t is every earlier delta and completion followed by
 * this delta. {@code logprobs} are the sampling log-probs of the completion tokens.
 * {@code newContext}: this turn's prompt does not extend the context before it (an agent program
 * that rewrote its history between calls), so {@code promptDeltaTokenIds} is its whole prompt and
 * the turns from here on are a sequence of their own, trained as a sample of its own with the
 * episode's advantage. Always false for the first turn and for the built-in agent loop, and then
 * left out of the JSON (a trajectory reads the same as before it existed; one written before it
 * reads as false).
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
        long toolMs,
        @Added("agent programs (issue 61)") @JsonInclude(JsonInclude.Include.NON_DEFAULT) Boolean newContext) {

    public Turn(int index, List<Integer> promptDeltaTokenIds, List<Integer> completionTokenIds, List<Double> logprobs, long policyVersion,
            Action action, String observation, long policyMs, long toolMs) {
        this(index, promptDeltaTokenIds, completionTokenIds, logprobs, policyVersion, action, observation, policyMs, toolMs, false);
    }

    public Turn {
        newContext = Boolean.TRUE.equals(newContext);
        promptDeltaTokenIds = List.copyOf(promptDeltaTokenIds);
        completionTokenIds = List.copyOf(completionTokenIds);
        logprobs = List.copyOf(logprobs);
        if (logprobs.size() != completionTokenIds.size()) {
            throw new IllegalArgumentException("turn " + index + ": " + logprobs.size() + " logprobs for "
                    + completionTokenIds.size() + " completion tokens");
        }
        if (newContext && index == 0) {
            throw new IllegalArgumentException("turn 0 starts the context; newContext is for a later turn whose prompt does not extend it");
        }
    }
}
