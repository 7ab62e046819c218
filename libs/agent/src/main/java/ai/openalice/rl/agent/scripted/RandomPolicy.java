package ai.openalice.rl.agent.scripted;

import ai.openalice.rl.model.tokenizer.Tokenizer;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.Policy;
import java.util.List;
import java.util.SplittableRandom;

/** A seeded random agent: harmless calls, unreadable answers and, rarely, a submit. For tests and load. */
public final class RandomPolicy implements Policy {
    private static final List<String> MOVES = List.of("call: bash\ncommand: ls\n", "call: search\npattern: def\n",
            "call: file_editor\ncommand: view\npath: .\n", "call: bash\ncommand: python3 -c 'print(42)'\n", "I am not sure what to do.\n");
    private final SplittableRandom random;
    private final Tokenizer tokenizer;
    private final double submitProbability;

    public RandomPolicy(long seed, Tokenizer tokenizer, double submitProbability) {
        this.random = new SplittableRandom(seed);
        this.tokenizer = tokenizer;
        this.submitProbability = submitProbability;
    }

    @Override
    public String name() {
        return "random";
    }

    @Override
    public Completion complete(CompletionRequest request) {
        String text = random.nextDouble() < submitProbability ? "call: submit\n" : MOVES.get(random.nextInt(MOVES.size()));
        int[] ids = tokenizer.encode(text);
        return new Completion(ids, new double[ids.length], text, Completion.FinishReason.STOP, 0);
    }
}
