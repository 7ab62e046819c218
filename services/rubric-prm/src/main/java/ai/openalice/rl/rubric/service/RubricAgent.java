package ai.openalice.rl.rubric.service;

import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.Policy;
import ai.openalice.rl.policy.PolicyException;
import ai.openalice.rl.prm.RubricParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The Rubric Agent: asks a model, through the Policy SPI, to write a task's rubric in the check
 * language, seeing what the agent never sees (the gold patch, the hidden tests). A rubric that
 * does not parse is refused with the reason; the caller then falls back to the built-in one.
 */
public final class RubricAgent {
    static final String PROMPT = """
            Write a grading rubric for an agent's attempt at this task, as JSON: {"criteria": [{"id": ..., "description": ...,
            "weight": ..., "check": {"type": ..., ...}}]}, weights summing to 1. Check types: localisation, edit_constraints,
            trajectory_discipline, budget, ran_command (pattern), viewed (path), edited (path), patch_excludes (pattern), max_turns (n).
            Problem: %s
            Fix (hidden from the agent): %s
            Tests that must pass: %s
            Rubric JSON:
            """;

    private final Policy policy;
    private final int maxTokens;
    private final ByteTokenizer tokenizer = new ByteTokenizer();

    public RubricAgent(Policy policy, int maxTokens) {
        this.policy = policy;
        this.maxTokens = maxTokens;
    }

    /** The model's rubric JSON, parsed and validated; empty with the reason logged when it is not a valid rubric. */
    public Optional<JsonNode> write(Task task, Consumer<String> refused) {
        String prompt = String.format(PROMPT, task.problemStatement(), task.patch() == null ? "" : task.patch(),
                String.join(", ", task.failToPass()));
        String text;
        try {
            text = policy.complete(new CompletionRequest(tokenizer.encode(prompt), maxTokens, 0, 1, 0L, List.of(), null)).text();
        } catch (PolicyException e) {
            refused.accept("the rubric model failed: " + e.getMessage());
            return Optional.empty();
        }
        int start = text.indexOf('{');
        int end = text.lastIndexOf('}');
        if (start < 0 || end <= start) {
            refused.accept("the rubric model wrote no JSON object");
            return Optional.empty();
        }
        try {
            JsonNode json = new ObjectMapper().readTree(text.substring(start, end + 1));
            RubricParser.parse(json, 1); // validates: weights, check types, fields
            return Optional.of(json);
        } catch (IOException | IllegalArgumentException e) {
            refused.accept("the rubric model's rubric is invalid: " + e.getMessage());
            return Optional.empty();
        }
    }
}
