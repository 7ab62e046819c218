package ai.openalice.rl.agent.external;

import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Turn;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What an agent program's model calls become for the trainer. Each call was recorded where the
 * policy served it: the prompt's token ids as the model saw them, the sampled ids with their
 * log-probabilities and the policy version that drew them. The turns are built from those ids
 * alone, never from the text the agent kept. A call whose prompt begins with the previous call's
 * prompt and completion, token for token, continues that context: its turn holds only the tokens
 * added since (the agent's observation and its next message). Any other call starts a new context
 * ({@link Turn#newContext()}) with its whole prompt: the agent rewrote its history (dropped or
 * summarised messages, or the completion came back re-tokenised differently), and the trainer
 * learns it as a sequence of its own with the episode's advantage. A turn's action is what its answer
 * asked the program to run (read by {@link RecordingChat}), and its observation what the program
 * sent after that answer, so that the reward-hack counts, the rubric, the report and the traces see
 * the program's commands and their output as they see the built-in loop's.
 */
public final class RecordedCalls {

    /**
     * One call. {@code sinceLastMs}: the agent's own time between the previous call's answer and
     * this call (running commands, reading files); the first call's is the time from the episode's
     * start. {@code action}: what the answer asked the program to run, as far as it can be read
     * from it (a tool call, or a fenced command); null when nothing can.
     */
    public record Call(int[] prompt, int[] completion, double[] logprobs, long policyVersion, long policyMs, long sinceLastMs, Action action) {
        public Call {
            if (prompt.length == 0) {
                throw new IllegalArgumentException("a call's prompt holds at least one token");
            }
            if (completion.length != logprobs.length) {
                throw new IllegalArgumentException(completion.length + " completion tokens but " + logprobs.length + " log-probs");
            }
            prompt = prompt.clone();
            completion = completion.clone();
            logprobs = logprobs.clone();
        }

        public Call(int[] prompt, int[] completion, double[] logprobs, long policyVersion, long policyMs, long sinceLastMs) {
            this(prompt, completion, logprobs, policyVersion, policyMs, sinceLastMs, null);
        }

        Call withAction(Action a) {
            return new Call(prompt, completion, logprobs, policyVersion, policyMs, sinceLastMs, a);
        }
    }

    /**
     * The turns, and how many calls after the first extended the context before them and how many
     * started a new one.
     */
    public record Assembled(List<Turn> turns, int extended, int rewritten) {
        public Assembled {
            turns = List.copyOf(turns);
        }
    }

    private RecordedCalls() {}

    /**
     * The episode's turns from its calls, in the order they were made. A turn's tool time is the
     * agent's time after its answer: the next call's {@code sinceLastMs}, or {@code tailMs} (from
     * the last answer to the program's exit) for the last.
     */
    public static Assembled turns(List<Call> calls, long tailMs) {
        return turns(calls, List.of(), tailMs);
    }

    /**
     * As {@link #turns(List, long)}, each turn's observation the program's words after its answer
     * ({@code observations}, by call; missing ones empty).
     */
    public static Assembled turns(List<Call> calls, List<String> observations, long tailMs) {
        var turns = new ArrayList<Turn>();
        int extended = 0, rewritten = 0;
        int[] context = new int[0];
        for (int i = 0; i < calls.size(); i++) {
            Call c = calls.get(i);
            boolean extendsContext = i > 0 && startsWith(c.prompt(), context);
            if (i > 0) {
                if (extendsContext) {
                    extended++;
                } else {
                    rewritten++;
                }
            }
            int[] delta = extendsContext ? Arrays.copyOfRange(c.prompt(), context.length, c.prompt().length) : c.prompt();
            long toolMs = i + 1 < calls.size() ? calls.get(i + 1).sinceLastMs() : tailMs;
            turns.add(new Turn(i, ints(delta), ints(c.completion()), doubles(c.logprobs()), c.policyVersion(), c.action(),
                    i < observations.size() ? observations.get(i) : "", c.policyMs(), toolMs,
                    i > 0 && !extendsContext));
            context = concat(c.prompt(), c.completion());
        }
        return new Assembled(turns, extended, rewritten);
    }

    private static boolean startsWith(int[] a, int[] prefix) {
        return a.length >= prefix.length && Arrays.equals(a, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** {@code a} then {@code b}; {@link RecordingChat} builds a continued prompt with it too. */
    static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static List<Integer> ints(int[] a) {
        return Arrays.stream(a).boxed().toList();
    }

    private static List<Double> doubles(double[] a) {
        return Arrays.stream(a).boxed().toList();
    }
}
