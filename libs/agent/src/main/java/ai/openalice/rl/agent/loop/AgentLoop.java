package ai.openalice.rl.agent.loop;

import ai.openalice.rl.agent.format.ToolCallFormat;
import ai.openalice.rl.agent.tools.Observation;
import ai.openalice.rl.agent.tools.ToolContext;
import ai.openalice.rl.agent.tools.Tools;
import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.AgentTask;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.jinja.TemplateException;
import ai.openalice.rl.model.chat.ChatLayout;
import ai.openalice.rl.model.chat.CompactChat;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.Policy;
import ai.openalice.rl.policy.PolicyException;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxException;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * think → act → observe. The context is the system prompt (the tool-call format and the tools),
 * the task's problem statement, then alternating model turns and observations. Each turn asks the
 * policy for a completion, parses the call, runs it in the sandbox and appends the (capped)
 * observation. The episode ends when the agent submits, or at max_steps, max_context, the wall
 * clock (timeout), or an infrastructure failure of the sandbox or the policy (infra_error — never
 * a failure of the policy).
 */
public final class AgentLoop {
    static final String SYSTEM = "You are a software engineer fixing a bug in the repository at %s. Explore it, reproduce the problem,"
            + " edit the code, run the tests, and call submit when the fix is done.\n%s";

    /**
     * For a model trained from scratch on this loop's trajectories (the built-in GPT): the tools'
     * descriptions carry nothing it can read, and would be most of every sequence it trains on.
     */
    static final String BRIEF = "Fix the bug in the repository at %s, then submit. Tools: %s.\n";

    /** What the system prompt says: {@code FULL} describes the call format and every tool; {@code BRIEF} names the tools only. */
    public enum Prompt { FULL, BRIEF }

    private final Policy policy;
    private final Tokenizer tokenizer;
    private final ToolCallFormat format;
    private final Tools tools;
    private final TestTimeSelection selection;
    private final Prompt prompt;
    private final ChatLayout layout;

    public AgentLoop(Policy policy, Tokenizer tokenizer, ToolCallFormat format, Tools tools) {
        this(policy, tokenizer, format, tools, null);
    }

    /** With {@code selection}, each turn samples M candidates and executes the best by π·exp(β·u); null = one sample. */
    public AgentLoop(Policy policy, Tokenizer tokenizer, ToolCallFormat format, Tools tools, TestTimeSelection selection) {
        this(policy, tokenizer, format, tools, selection, Prompt.FULL, new CompactChat(tokenizer));
    }

    private AgentLoop(Policy policy, Tokenizer tokenizer, ToolCallFormat format, Tools tools, TestTimeSelection selection, Prompt prompt,
            ChatLayout layout) {
        this.policy = policy;
        this.tokenizer = tokenizer;
        this.format = format;
        this.tools = tools;
        this.selection = selection;
        this.prompt = prompt;
        this.layout = layout;
    }

    /** This loop with another system prompt. */
    public AgentLoop withPrompt(Prompt p) {
        return new AgentLoop(policy, tokenizer, format, tools, selection, p, layout);
    }

    /** This loop laid out in another way (a model's chat template instead of the compact layout). */
    public AgentLoop withLayout(ChatLayout l) {
        return new AgentLoop(policy, tokenizer, format, tools, selection, prompt, l);
    }

    /**
     * The system prompt the agent sees (nothing privileged: the task's id, statement and workspace
     * only); it describes the call format and tools unless the chat template renders the tools.
     */
    public String systemPrompt(String workdir) {
        return switch (prompt) {
            case FULL -> layout.describesTools() ? String.format(SYSTEM, workdir, format.describe(tools.all())) : String.format(SYSTEM, workdir, "").strip();
            case BRIEF -> String.format(BRIEF, workdir, String.join(", ", tools.all().stream().map(t -> t.name()).toList()));
        };
    }

    public Episode run(AgentTask task, Sandbox sandbox, LoopConfig cfg) {
        long start = System.nanoTime();
        long deadline = start + cfg.episodeTimeout().toNanos();
        var chat = layout.forEpisode();
        var ctx = new ToolContext(sandbox, cfg.toolTimeout(), cfg.toolTimeout().multipliedBy(2));
        var turns = new ArrayList<Turn>();
        int[] context = new int[0];
        int[] delta;
        try {
            delta = chat.opening(systemPrompt(sandbox.workdir()), task.problemStatement(), tools.definitions());
        } catch (TemplateException e) {
            return templateFailure(e, start);
        }
        long policyNanos = 0;
        long toolNanos = 0;
        long promptTokens = 0;
        long completionTokens = 0;
        Termination end = null;
        RolloutCompleted.Failure error = null;
        SandboxException.Reason sandboxFailure = null;
        for (int step = 0; end == null; step++) {
            if (System.nanoTime() > deadline) {
                end = Termination.TIMEOUT;
                break;
            }
            if (step >= cfg.maxSteps()) {
                end = Termination.MAX_STEPS;
                break;
            }
            int[] prompt = ChatLayout.concat(context, delta);
            if (prompt.length + cfg.maxTokensPerTurn() > cfg.maxContextTokens()) {
                end = Termination.MAX_CONTEXT;
                break;
            }
            Completion c;
            long t0 = System.nanoTime();
            try {
                c = next(prompt, cfg, step, new Trajectory(turns));
            } catch (PolicyException e) {
                end = Termination.INFRA_ERROR;
                error = new RolloutCompleted.Failure("policy", e.getMessage());
                break;
            }
            long t1 = System.nanoTime();
            policyNanos += t1 - t0;
            promptTokens += delta.length;
            completionTokens += c.tokens().length;
            Action action;
            Observation obs;
            try {
                switch (format.parse(c.text())) {
                    case ToolCallFormat.Parsed.Call call -> {
                        obs = tools.call(call.tool(), call.args(), ctx);
                        action = new Action(call.tool(), call.args(), null, obs.error());
                    }
                    case ToolCallFormat.Parsed.Unparsable u -> {
                        action = new Action("", JsonNodeFactory.instance.objectNode(), u.reason());
                        obs = Observation.error("Your answer could not be read as a tool call: " + u.reason());
                    }
                }
            } catch (SandboxException e) {
                end = Termination.INFRA_ERROR;
                error = new RolloutCompleted.Failure("sandbox", e.getMessage());
                sandboxFailure = e.reason();
                action = new Action("", JsonNodeFactory.instance.objectNode(), null);
                obs = Observation.error("");
            }
            long t2 = System.nanoTime();
            toolNanos += t2 - t1;
            String observation = cap(obs.text(), cfg.maxObservationTokens(), tokenizer);
            turns.add(new Turn(step, boxed(delta), boxed(c.tokens()), Arrays.stream(c.logprobs()).boxed().toList(), c.policyVersion(), action,
                    observation, (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000));
            context = ChatLayout.concat(prompt, c.tokens());
            if (end == null && obs.terminal()) {
                end = Termination.SUBMITTED;
            }
            if (end == null) {
                try {
                    delta = chat.afterCompletion(c.tokens(), observation);
                } catch (TemplateException e) {
                    end = Termination.INFRA_ERROR;
                    error = templateError(e);
                }
            }
        }
        String patch = "";
        if (end != Termination.INFRA_ERROR) {
            try {
                patch = sandbox.diff();
            } catch (SandboxException e) {
                end = Termination.INFRA_ERROR;
                error = new RolloutCompleted.Failure("sandbox", "computing the patch: " + e.getMessage());
                sandboxFailure = e.reason();
            }
        }
        long wall = (System.nanoTime() - start) / 1_000_000;
        var stats = new RolloutCompleted.Stats(turns.size(), promptTokens, completionTokens, wall, policyNanos / 1_000_000, toolNanos / 1_000_000);
        return new Episode(new Trajectory(turns), end, error, patch, stats, sandboxFailure);
    }

    /** The chat template failed to render: the runner's fault, never the policy's (retried, not scored). */
    private static RolloutCompleted.Failure templateError(TemplateException e) {
        return new RolloutCompleted.Failure("runner", "chat template: " + e.getMessage());
    }

    private static Episode templateFailure(TemplateException e, long start) {
        long wall = (System.nanoTime() - start) / 1_000_000;
        return new Episode(new Trajectory(List.of()), Termination.INFRA_ERROR, templateError(e), "",
                new RolloutCompleted.Stats(0, 0, 0, wall, 0, 0));
    }

    /** One completion, or — with test-time selection — the best of M. */
    private Completion next(int[] prompt, LoopConfig cfg, int step, Trajectory soFar) {
        if (selection == null) {
            return policy.complete(new CompletionRequest(prompt, cfg.maxTokensPerTurn(), cfg.temperature(), cfg.topP(),
                    cfg.seed() == null ? null : cfg.seed() + step, cfg.stop(), null));
        }
        var completions = new ArrayList<Completion>();
        var parsed = new ArrayList<ToolCallFormat.Parsed>();
        for (int k = 0; k < selection.candidates(); k++) {
            long seed = (cfg.seed() == null ? System.nanoTime() : cfg.seed() + step) * 31 + k;
            Completion c = policy.complete(new CompletionRequest(prompt, cfg.maxTokensPerTurn(), cfg.temperature(), cfg.topP(), seed, cfg.stop(), null));
            completions.add(c);
            parsed.add(format.parse(c.text()));
        }
        return completions.get(selection.choose(soFar, completions, parsed));
    }

    /**
     * Keeps the head and the tail of an observation longer than {@code max} of the model's tokens and
     * says how many characters were cut between them; the result, notice included, is at most
     * {@code max} tokens (the most characters that fit, up to 32 a token, found by bisection).
     */
    static String cap(String text, int max, Tokenizer tokenizer) {
        // a token spans a few characters, rarely dozens: beyond 32 a token, the text is cut without tokenizing it all
        long bound = 32L * max;
        if (text.length() <= bound && tokenizer.encode(text).length <= max) {
            return text;
        }
        int lo = 0;
        int hi = (int) Math.min(text.length(), bound);
        while (lo < hi) {
            int k = (lo + hi + 1) / 2;
            if (tokenizer.encode(keep(text, k)).length <= max) {
                lo = k;
            } else {
                hi = k - 1;
            }
        }
        return keep(text, lo);
    }

    /** The first k/2 and last k − k/2 characters (never half a surrogate pair) around a notice of what was cut. */
    private static String keep(String text, int k) {
        int head = k / 2;
        int tail = text.length() - (k - head);
        if (head > 0 && Character.isHighSurrogate(text.charAt(head - 1))) {
            head--;
        }
        if (tail < text.length() && Character.isLowSurrogate(text.charAt(tail))) {
            tail++;
        }
        return text.substring(0, head) + "\n[... " + (tail - head) + " characters cut ...]\n" + text.substring(tail);
    }

    private static List<Integer> boxed(int[] a) {
        return Arrays.stream(a).boxed().toList();
    }
}
