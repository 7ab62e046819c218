package ai.openalice.rl.model.chat;

import ai.openalice.rl.jinja.TemplateException;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * An episode laid out by the model's own chat template. The opening is the template's rendering of
 * the system prompt and the task with {@code add_generation_prompt}. After each completion, the
 * template renders a probe conversation — system, task, an assistant turn holding a marker, the
 * tool result — and the text after the marker is what follows the completion: the end of the
 * assistant's turn (left out when the completion already ended with that token), the tool result
 * in the template's {@code tool} role, and the next assistant header. Earlier turns are never
 * rendered again, so a template that rewrites history (Qwen3's drops an empty {@code <think>} block
 * from earlier turns) cannot change what the policy saw.
 */
public final class TemplateChat implements ChatLayout {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String MARKER = "ALICE_COMPLETION_MARKER";

    private final ChatTemplate template;
    private final Tokenizer tokenizer;
    private final Map<String, Object> extra;
    private final boolean rendersTools;
    private String system = "";
    private String user = "";
    private JsonNode tools;

    /** {@code extra}: template variables such as {@code enable_thinking}. */
    public TemplateChat(ChatTemplate template, Tokenizer tokenizer, Map<String, Object> extra) {
        this.template = template;
        this.tokenizer = tokenizer;
        this.extra = Map.copyOf(extra);
        ArrayNode probeTools = JSON.createArrayNode();
        probeTools.addObject().put("type", "function").putObject("function").put("name", MARKER).put("description", MARKER)
                .putObject("parameters").put("type", "object");
        String probe = template.render(messages(), probeTools, true, extra);
        this.rendersTools = probe.contains(MARKER);
        var missing = new TreeSet<String>();
        var m = SPECIAL.matcher(probe);
        while (m.find()) {
            if (tokenizer.special(m.group()).isEmpty()) {
                missing.add(m.group());
            }
        }
        if (!missing.isEmpty()) {
            throw new TemplateException("the chat template writes " + missing + " but the tokenizer has no such special token (it has "
                    + tokenizer.specials() + "): the model would read them as plain text");
        }
    }

    /** How Qwen, Llama 3 and most current families name their special tokens. */
    private static final Pattern SPECIAL = Pattern.compile("<\\|[A-Za-z0-9_]+\\|>");

    private TemplateChat(TemplateChat checked) {
        this.template = checked.template;
        this.tokenizer = checked.tokenizer;
        this.extra = checked.extra;
        this.rendersTools = checked.rendersTools;
    }

    /** A layout for a new episode (a layout remembers its episode's system prompt, task and tools). */
    @Override
    public TemplateChat forEpisode() {
        return new TemplateChat(this);
    }

    @Override
    public int[] opening(String system, String user, JsonNode tools) {
        this.system = system;
        this.user = user;
        this.tools = tools;
        return tokenizer.encode(template.render(messages(), tools, true, extra));
    }

    @Override
    public int[] afterCompletion(int[] completion, String observation) {
        ArrayNode probe = messages();
        probe.addObject().put("role", "assistant").put("content", MARKER);
        probe.addObject().put("role", "tool").put("content", observation);
        String rendered = template.render(probe, tools, true, extra);
        int at = rendered.lastIndexOf(MARKER);
        if (at < 0) {
            throw new TemplateException("the chat template does not render an assistant message's content (probe marker missing)");
        }
        String after = rendered.substring(at + MARKER.length());
        if (completion.length > 0 && isEnd(completion[completion.length - 1])) {
            String end = tokenizer.decode(new int[] {completion[completion.length - 1]});
            if (after.startsWith(end)) {
                after = after.substring(end.length());
            }
        }
        return tokenizer.encode(after);
    }

    /** True for a template that ignores {@code tools}: then the system prompt has to describe them. */
    @Override
    public boolean describesTools() {
        return !rendersTools;
    }

    private boolean isEnd(int token) {
        for (int e : tokenizer.endTokens()) {
            if (e == token) {
                return true;
            }
        }
        return false;
    }

    private ArrayNode messages() {
        ArrayNode m = JSON.createArrayNode();
        m.addObject().put("role", "system").put("content", system);
        m.addObject().put("role", "user").put("content", user);
        return m;
    }
}
