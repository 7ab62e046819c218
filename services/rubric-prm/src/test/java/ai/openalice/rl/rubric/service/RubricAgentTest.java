package ai.openalice.rl.rubric.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.Policy;
import ai.openalice.rl.rubric.service.RubricAgent;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Rubric Agent with a stand-in model: a valid rubric is taken, anything else is refused with a reason. */
class RubricAgentTest {
    static Task task() {
        Path tasks = Path.of("..", "..", "examples", "tasks", "calc.jsonl").toAbsolutePath().normalize();
        return ((TaskReader.Line.Valid) TaskReader.read(tasks).getFirst()).task();
    }

    static Policy answering(String text, List<String> prompts) {
        return new Policy() {
            public String name() {
                return "stand-in";
            }

            public Completion complete(CompletionRequest r) {
                prompts.add(new ByteTokenizer().decode(r.prompt()));
                return new Completion(new int[0], new double[0], text, Completion.FinishReason.STOP, 0);
            }
        };
    }

    @Test
    void takesAValidRubricAndRefusesAnInvalidOne() {
        var prompts = new ArrayList<String>();
        String good = "Here it is: {\"criteria\": [{\"id\": \"fix\", \"weight\": 1, \"check\": {\"type\": \"edited\", \"path\": \"calc/ops.py\"}}]}";
        var reasons = new ArrayList<String>();
        var json = new RubricAgent(answering(good, prompts), 256).write(task(), reasons::add);
        assertTrue(json.isPresent());
        assertEquals("edited", json.get().get("criteria").get(0).get("check").get("type").asText());
        assertTrue(prompts.getFirst().contains("return a + b"), "the Rubric Agent sees the gold patch (privileged)");

        var bad = new RubricAgent(answering("{\"criteria\": [{\"id\": \"x\", \"weight\": 0.3, \"check\": {\"type\": \"budget\"}}]}", prompts), 256)
                .write(task(), reasons::add);
        assertTrue(bad.isEmpty());
        assertEquals("the rubric model's rubric is invalid: criteria weights must sum to 1, got 0.3", reasons.getLast());
    }
}
