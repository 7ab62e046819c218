package ai.openalice.rl.agent.external;

import ai.openalice.rl.events.Action;
import ai.openalice.rl.jinja.TemplateException;
import ai.openalice.rl.model.chat.ChatTemplate;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.Policy;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The policy behind one episode's chat calls from an agent program, each call recorded token-exact.
 * A call is laid out by the model's chat template and tokenised here, never by the program. When
 * its messages are the previous call's, then the answer given to it unchanged, then more, the
 * prompt is the previous prompt, the completion's tokens as they were sampled, and the tokens of
 * what the template writes after that answer (found by rendering the conversation with a marker in
 * the answer's place): the context the policy saw goes on, and the trainer gets one sequence.
 * Otherwise (the program dropped, summarised or edited its history) the whole conversation is
 * rendered and tokenised afresh, and {@link RecordedCalls} makes it a context of its own.
 */
public final class RecordingChat {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** How to sample one answer. */
    public record Sampling(int maxTokens, double temperature, double topP, List<String> stop, Long seed) {
        public Sampling {
            stop = stop == null ? List.of() : List.copyOf(stop);
        }
    }

    /**
     * The episode's budget: at most {@code maxCalls} calls, and a prompt and its answer within
     * {@code maxContextTokens} (an answer is cut to fit; a prompt that leaves no room is refused).
     */
    public record Budget(int maxCalls, int maxContextTokens) {}

    /**
     * How a spent budget's message begins: OpenAI's words for a context overflow, which clients
     * (litellm, so mini-swe-agent) read as "stop", where they would retry another 400.
     */
    static final String CONTEXT_PHRASE = "This model's maximum context length is ";

    /** A call the budget has no room for; {@link #spent()} says which part ran out. */
    public static final class BudgetSpent extends RuntimeException {
        BudgetSpent(String message) {
            super(message);
        }
    }

    /** Which part of the budget ran out. */
    public enum Spent { CALLS, CONTEXT }

    /** The answer the program gets, and what was recorded of the call. */
    public record Answer(String text, Completion.FinishReason finish, int promptTokens, int completionTokens, long policyVersion, boolean continued) {}

    /**
     * What the endpoint tokenised for call {@code index}: the whole rendered conversation, or, for a
     * call that continued the previous one, only the text the template writes after its answer
     * ({@code continued}); {@code ids} are that text's tokens, as the policy got them.
     */
    public record Rendered(int index, boolean continued, String text, int[] ids) {}

    private final ChatTemplate template;
    private final Tokenizer tokenizer;
    private final Map<String, Object> extra;
    private final Policy policy;
    private final Budget budget;
    private Spent spent;
    private final List<RecordedCalls.Call> calls = new ArrayList<>();
    private final List<Rendered> rendered = new ArrayList<>();
    private ArrayNode lastMessages;
    private String lastAnswer;
    private JsonNode lastAnswerMessage;
    private final List<JsonNode> answers = new ArrayList<>();
    /** Per call, what the program sent after its answer (filled in by the next call; the last stays empty). */
    private final List<String> observations = new ArrayList<>();
    private long lastAnsweredAt = System.nanoTime();

    /** {@code extra}: template variables such as {@code enable_thinking}. */
    public RecordingChat(ChatTemplate template, Tokenizer tokenizer, Map<String, Object> extra, Policy policy, Budget budget) {
        this.template = template;
        this.tokenizer = tokenizer;
        this.extra = Map.copyOf(extra);
        this.policy = policy;
        this.budget = budget;
    }

    /** Without a budget. */
    public RecordingChat(ChatTemplate template, Tokenizer tokenizer, Map<String, Object> extra, Policy policy) {
        this(template, tokenizer, extra, policy, new Budget(Integer.MAX_VALUE, Integer.MAX_VALUE));
    }

    /**
     * Samples the answer to {@code messages} (OpenAI's chat messages, text content) and records the
     * call. A template that cannot render them is a {@link TemplateException} naming why, a call
     * over the budget a {@link BudgetSpent}; the policy's own failure comes through as it is, and
     * nothing is recorded.
     */
    public synchronized Answer complete(ArrayNode messages, JsonNode tools, Sampling sampling) {
        int shared = calls.isEmpty() ? 0 : shared(messages);
        if (!calls.isEmpty()) { // what the program sent after the last answer, even if this call is refused
            observations.set(observations.size() - 1, observation(messages, shared));
        }
        if (calls.size() >= budget.maxCalls()) {
            spent = Spent.CALLS;
            throw new BudgetSpent(CONTEXT_PHRASE + "reached for this episode: its " + budget.maxCalls() + " calls are spent");
        }
        long since = (System.nanoTime() - lastAnsweredAt) / 1_000_000;
        int[] prompt;
        // the previous call's messages unchanged, then its answer as given, then at least one more message
        boolean continued = !calls.isEmpty() && shared == lastMessages.size() + 1 && messages.size() > shared;
        if (continued) {
            String after = afterLastAnswer(messages, tools);
            int[] added = tokenizer.encode(after);
            RecordedCalls.Call last = calls.getLast();
            prompt = RecordedCalls.concat(RecordedCalls.concat(last.prompt(), last.completion()), added);
            rendered.add(new Rendered(calls.size(), true, after, added));
        } else {
            String text = template.render(messages, tools, true, extra);
            prompt = tokenizer.encode(text);
            rendered.add(new Rendered(calls.size(), false, text, prompt));
        }
        int room = budget.maxContextTokens() - prompt.length;
        if (room < 1) {
            rendered.removeLast();
            spent = Spent.CONTEXT;
            throw new BudgetSpent(CONTEXT_PHRASE + budget.maxContextTokens() + " tokens in this episode, and the prompt is " + prompt.length + " tokens");
        }
        long t0 = System.nanoTime();
        Completion c;
        try {
            c = policy.complete(new CompletionRequest(prompt, Math.min(sampling.maxTokens(), room), sampling.temperature(), sampling.topP(),
                    sampling.seed(), sampling.stop(), null));
        } catch (RuntimeException e) {
            rendered.removeLast();
            throw e;
        }
        long policyMs = (System.nanoTime() - t0) / 1_000_000;
        calls.add(new RecordedCalls.Call(prompt, c.tokens(), c.logprobs(), c.policyVersion(), policyMs, since));
        observations.add("");
        lastMessages = messages.deepCopy();
        lastAnswer = withoutEndToken(c);
        lastAnswerMessage = JSON.createObjectNode().put("role", "assistant").put("content", lastAnswer);
        answers.add(lastAnswerMessage);
        lastAnsweredAt = System.nanoTime();
        return new Answer(lastAnswer, c.finish(), prompt.length, c.tokens().length, c.policyVersion(), continued);
    }

    /** What of the budget ran out, if a call was refused for it. */
    public synchronized Optional<Spent> spent() {
        return Optional.ofNullable(spent);
    }

    /**
     * The message the program was given for the last answer, when it is not the answer's text as
     * content: its tool calls, read from the text by the endpoint. A later call continues the
     * context when it sends this message back.
     */
    public synchronized void answered(JsonNode message) {
        lastAnswerMessage = message.deepCopy();
        answers.set(answers.size() - 1, lastAnswerMessage);
    }

    /** The calls so far, in order. */
    public synchronized List<RecordedCalls.Call> calls() {
        return List.copyOf(calls);
    }

    /** What was tokenised for each call, in order. */
    public synchronized List<Rendered> rendered() {
        return List.copyOf(rendered);
    }

    /** The episode's turns from its calls; {@code tailMs}: the program's time after the last answer. */
    public synchronized RecordedCalls.Assembled turns() {
        var withActions = new ArrayList<RecordedCalls.Call>();
        for (int i = 0; i < calls.size(); i++) {
            withActions.add(calls.get(i).withAction(action(answers.get(i))));
        }
        return RecordedCalls.turns(withActions, observations, (System.nanoTime() - lastAnsweredAt) / 1_000_000);
    }

    /**
     * How many of {@code messages} the last call also sent: its messages, unchanged, then (when all
     * of those are) its answer as given.
     */
    private int shared(ArrayNode messages) {
        int shared = 0;
        while (shared < lastMessages.size() && shared < messages.size() && lastMessages.get(shared).equals(messages.get(shared))) {
            shared++;
        }
        if (shared == lastMessages.size() && shared < messages.size() && sameAnswer(messages.get(shared), lastAnswerMessage)) {
            shared++;
        }
        return shared;
    }

    /**
     * What the program got back after its last answer, as it told the model: the text of the
     * messages after the {@code shared} ones, one to a line, assistant messages left out. A program
     * that dropped the answer (mini-swe-agent keeps no answer it could not parse, only its format
     * error) still shows what it sent after it.
     */
    private static String observation(ArrayNode messages, int shared) {
        var out = new StringBuilder();
        for (int i = shared; i < messages.size(); i++) {
            String text = "assistant".equals(messages.get(i).path("role").asText()) ? "" : text(messages.get(i).path("content"));
            if (!text.isEmpty()) {
                out.append(out.isEmpty() ? "" : "\n").append(text);
            }
        }
        return out.toString();
    }

    /** A message's text: its content, or the text of its parts. */
    private static String text(JsonNode content) {
        if (content.isArray()) {
            var out = new StringBuilder();
            content.forEach(p -> out.append(p.path("text").asText("")));
            return out.toString();
        }
        return content.asText("");
    }

    /** A fenced block of commands, as text-based agents ask for them (mini-swe-agent's {@code mswea_bash_command}, or {@code bash}/{@code sh}). */
    private static final Pattern FENCED = Pattern.compile("```(?:bash|sh|mswea_bash_command)?[ \\t]*\\n(.*?)\\n```", Pattern.DOTALL);

    /**
     * What an answer asked the program to run: its first tool call (the tool's name and arguments), or
     * the first fenced command in its text, as {@code bash}; null when neither.
     */
    static Action action(JsonNode answer) {
        JsonNode call = answer.path("tool_calls").path(0);
        if (call.isObject()) {
            JsonNode args = arguments(call);
            return new Action(call.at("/function/name").asText(), args.isObject() ? (ObjectNode) args : JSON.createObjectNode(), null);
        }
        Matcher m = FENCED.matcher(answer.path("content").asText(""));
        return m.find() ? new Action("bash", JSON.createObjectNode().put("command", m.group(1)), null) : null;
    }

    /**
     * Whether {@code sent} is the answer {@code given}: an assistant message with the same text (none
     * and empty alike) and the same tool calls — names, and arguments as JSON (a program may write
     * them again with other spacing or key order), ids where it sends them.
     */
    static boolean sameAnswer(JsonNode sent, JsonNode given) {
        if (!"assistant".equals(sent.path("role").asText()) || !sent.path("content").asText("").equals(given.path("content").asText(""))) {
            return false;
        }
        JsonNode a = sent.path("tool_calls"), b = given.path("tool_calls");
        int n = a.isArray() ? a.size() : 0;
        if (n != (b.isArray() ? b.size() : 0)) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            JsonNode x = a.get(i), y = b.get(i);
            if (x.hasNonNull("id") && !x.get("id").equals(y.get("id"))
                    || !x.at("/function/name").asText().equals(y.at("/function/name").asText())
                    || !arguments(x).equals(arguments(y))) {
                return false;
            }
        }
        return true;
    }

    private static JsonNode arguments(JsonNode call) {
        JsonNode args = call.at("/function/arguments");
        if (args.isTextual()) {
            try {
                return JSON.readTree(args.asText());
            } catch (IOException e) {
                return args;
            }
        }
        return args;
    }

    /**
     * What the template writes after the last answer, up to the next generation prompt: the end of
     * the assistant's turn (left out when the completion ended with that token), the new messages,
     * the assistant header.
     */
    private String afterLastAnswer(ArrayNode messages, JsonNode tools) {
        String marker = "ALICE_ANSWER_" + UUID.randomUUID().toString().replace("-", "");
        // the whole answer, tool calls too, becomes the marker: what follows it does not depend on how the template writes them
        ArrayNode probe = messages.deepCopy();
        probe.set(lastMessages.size(), JSON.createObjectNode().put("role", "assistant").put("content", marker));
        String text = template.render(probe, tools, true, extra);
        int at = text.indexOf(marker);
        if (at < 0) {
            throw new TemplateException("the chat template does not render an assistant message's content (probe marker missing)");
        }
        String after = text.substring(at + marker.length());
        int[] completion = calls.getLast().completion();
        if (completion.length > 0 && isEnd(completion[completion.length - 1])) {
            String end = tokenizer.decode(new int[] {completion[completion.length - 1]});
            if (after.startsWith(end)) {
                after = after.substring(end.length());
            }
        }
        return after;
    }

    /** The completion's text without the end token's own text, which the program should not see. */
    private String withoutEndToken(Completion c) {
        int[] t = c.tokens();
        if (t.length > 0 && isEnd(t[t.length - 1])) {
            String end = tokenizer.decode(new int[] {t[t.length - 1]});
            if (c.text().endsWith(end)) {
                return c.text().substring(0, c.text().length() - end.length());
            }
        }
        return c.text();
    }

    private boolean isEnd(int token) {
        return Arrays.stream(tokenizer.endTokens()).anyMatch(e -> e == token);
    }
}
