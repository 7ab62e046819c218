package ai.openalice.rl.model.chat;

import ai.openalice.rl.jinja.Template;
import ai.openalice.rl.jinja.TemplateException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A model's chat template — the Jinja template HuggingFace ships in {@code tokenizer_config.json}
 * ({@code chat_template}) or beside it in {@code chat_template.jinja} — rendered the way
 * transformers' {@code apply_chat_template} renders it: {@code trim_blocks} and
 * {@code lstrip_blocks} on, {@code messages}, {@code tools}, {@code add_generation_prompt}, the
 * special tokens ({@code bos_token}, {@code eos_token}, …) and any extra variables
 * ({@code enable_thinking}) in scope, {@code raise_exception} and {@code strftime_now} callable,
 * {@code tojson} as Python's {@code json.dumps} without HTML escaping.
 *
 * <p>The Jinja subset is what chat templates use (listed in {@code docs/models.md}); a template
 * using anything else fails to load with an error naming the tag, filter or test.
 */
public final class ChatTemplate {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String source;
    private final Template body;
    private final Map<String, String> specialTokens;
    private final Clock clock;

    private ChatTemplate(String source, Template body, Map<String, String> specialTokens, Clock clock) {
        this.source = source;
        this.body = body;
        this.specialTokens = specialTokens;
        this.clock = clock;
    }

    /** Parses {@code source}; {@code specialTokens} maps names such as {@code bos_token} to their text. */
    public static ChatTemplate of(String source, Map<String, String> specialTokens) {
        return new ChatTemplate(source, Template.parse(source), Map.copyOf(specialTokens), Clock.systemUTC());
    }

    /**
     * The template of a model folder: {@code chat_template.jinja} if present, else
     * {@code tokenizer_config.json}'s {@code chat_template} (a string, or a list of named templates of
     * which {@code default} is taken, {@code tool_use} when {@code forTools}). Special tokens come from
     * {@code tokenizer_config.json} (a string or an object with {@code content}).
     */
    public static ChatTemplate load(Path modelDir, boolean forTools) throws IOException {
        Path cfgFile = modelDir.resolve("tokenizer_config.json");
        JsonNode cfg = Files.exists(cfgFile) ? JSON.readTree(cfgFile.toFile()) : JSON.createObjectNode();
        var specials = new LinkedHashMap<String, String>();
        for (String name : List.of("bos_token", "eos_token", "unk_token", "pad_token", "sep_token", "cls_token", "mask_token")) {
            JsonNode t = cfg.get(name);
            if (t != null && t.isTextual()) {
                specials.put(name, t.asText());
            } else if (t != null && t.path("content").isTextual()) {
                specials.put(name, t.path("content").asText());
            }
        }
        Path jinja = modelDir.resolve("chat_template.jinja");
        String source;
        if (Files.exists(jinja)) {
            source = Files.readString(jinja);
        } else {
            source = named(cfg.get("chat_template"), forTools, cfgFile);
        }
        try {
            return of(source, specials);
        } catch (TemplateException e) {
            throw new TemplateException("the chat template of " + modelDir + " cannot be used: " + e.getMessage());
        }
    }

    private static String named(JsonNode t, boolean forTools, Path cfgFile) {
        if (t == null || t.isNull()) {
            throw new TemplateException(cfgFile + " has no chat_template (and there is no chat_template.jinja beside it)");
        }
        if (t.isTextual()) {
            return t.asText();
        }
        String dflt = null;
        for (JsonNode named : t) {
            String name = named.path("name").asText();
            if (forTools && name.equals("tool_use")) {
                return named.path("template").asText();
            }
            if (name.equals("default")) {
                dflt = named.path("template").asText();
            }
        }
        if (dflt == null) {
            throw new TemplateException(cfgFile + ": chat_template is a list without a template named 'default'");
        }
        return dflt;
    }

    /** This template with the clock {@code strftime_now} reads (tests pin the date). */
    public ChatTemplate withClock(Clock c) {
        return new ChatTemplate(source, body, specialTokens, c);
    }

    public String source() {
        return source;
    }

    public Map<String, String> specialTokens() {
        return specialTokens;
    }

    /**
     * Renders a conversation as transformers 5's {@code apply_chat_template} does. {@code messages} is
     * a JSON array of OpenAI-style messages ({@code role}, {@code content}, {@code tool_calls},
     * {@code tool_call_id}); {@code tools} a JSON array of tool definitions or null. As there,
     * {@code tools} and {@code documents} are always defined (None when not given: a template's
     * {@code tools is not none} is false, {@code tools is defined} true), and a message's reasoning
     * is given under each name templates read it by ({@link #aliasReasoning}).
     */
    public String render(JsonNode messages, JsonNode tools, boolean addGenerationPrompt, Map<String, Object> extra) {
        var variables = new LinkedHashMap<String, Object>(specialTokens);
        variables.put("messages", aliasReasoning(messages));
        variables.put("tools", tools == null || tools.isNull() ? null : tools);
        variables.put("documents", null);
        variables.put("add_generation_prompt", addGenerationPrompt);
        variables.putAll(extra);
        return body.render(variables, clock);
    }

    /**
     * transformers' aliasing of reasoning (5.x): a message carrying reasoning under
     * {@code reasoning_content}, {@code thinking} or {@code reasoning} (the first not null, in that
     * order) gets it as {@code reasoning_content} too, and as {@code thinking} unless it has one
     * (gpt-oss templates read {@code thinking}, Qwen3's {@code reasoning_content}).
     */
    static JsonNode aliasReasoning(JsonNode messages) {
        if (messages == null || !messages.isArray()) {
            return messages;
        }
        var out = JSON.createArrayNode();
        for (JsonNode m : messages) {
            JsonNode reasoning = null;
            for (String field : List.of("reasoning_content", "thinking", "reasoning")) {
                if (reasoning == null && m.isObject() && m.hasNonNull(field)) {
                    reasoning = m.get(field);
                }
            }
            if (reasoning == null) {
                out.add(m);
                continue;
            }
            var aliased = JSON.createObjectNode();
            aliased.set("thinking", reasoning); // first, as Python's {"thinking": r, **message, ...} orders it
            aliased.setAll((ObjectNode) m);
            aliased.set("reasoning_content", reasoning);
            out.add(aliased);
        }
        return out;
    }
}
