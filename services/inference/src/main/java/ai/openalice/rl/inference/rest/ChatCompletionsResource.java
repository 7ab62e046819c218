package ai.openalice.rl.inference.rest;

import ai.openalice.rl.events.auth.Roles;
import ai.openalice.rl.inference.service.LoadedModel;
import ai.openalice.rl.model.tokenizer.CompactChat;
import ai.openalice.rl.policy.Completion;
import com.fasterxml.jackson.databind.JsonNode;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * OpenAI-compatible chat completions. The messages are laid out in the served model's chat format —
 * the built-in model's compact layout, the same the agent loop trains on — and sampled as
 * completions are; {@code stream: true} answers as Server-Sent Events of
 * {@code chat.completion.chunk}s. A HuggingFace model's own chat template and {@code tools} are not
 * rendered yet: such a request is refused naming what is missing, never answered from a layout the
 * model was not trained on.
 */
@Path("/v1")
@RolesAllowed(Roles.POLICY_CLIENT)
public class ChatCompletionsResource {
    @Inject
    Generator generator;

    @POST
    @Path("/chat/completions")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces({MediaType.APPLICATION_JSON, "text/event-stream"})
    public Response chat(ChatBody body) {
        if (body == null) {
            throw ProblemException.badRequest("the body must be a JSON object");
        }
        var messages = messages(body.messages());
        if (body.tools() != null && !body.tools().isNull() && !body.tools().isEmpty()) {
            throw ProblemException.badRequest("tools: tool definitions are not rendered into this model's prompt yet; describe the tools in a"
                    + " system message and parse the calls from the text");
        }
        Integer max = body.maxCompletionTokens() != null ? body.maxCompletionTokens() : body.maxTokens();
        var r = generator.generate(model -> prompt(model, messages),
                new Generator.Sampling(max, body.temperature(), body.topP(), body.stop(), body.seed(), body.n(), body.policyVersion()));
        String id = "chatcmpl-" + UUID.randomUUID();
        long created = System.currentTimeMillis() / 1000;
        if (Boolean.TRUE.equals(body.stream())) {
            return Sse.of(chunks(r, id, created, Sse.includeUsage(body.streamOptions())));
        }
        var choices = new ArrayList<Map<String, Object>>();
        for (int i = 0; i < r.completions().size(); i++) {
            Completion c = r.completions().get(i);
            var m = new LinkedHashMap<String, Object>();
            m.put("index", i);
            var message = new LinkedHashMap<String, Object>();
            message.put("role", "assistant");
            message.put("content", c.text());
            message.put("refusal", null);
            m.put("message", message);
            m.put("tokens", c.tokens());
            m.put("logprobs", Boolean.TRUE.equals(body.logprobs()) ? logprobs(c, r) : null);
            m.put("finish_reason", Generator.finishReason(c));
            choices.add(m);
        }
        var out = CompletionsResource.header(id, created, r.version(), "chat.completion");
        out.put("choices", choices);
        out.put("usage", CompletionsResource.usage(r));
        return Response.ok(out, MediaType.APPLICATION_JSON).build();
    }

    /** Each message's role and text; content may be a string or OpenAI's array of text parts. */
    static List<Map.Entry<String, String>> messages(JsonNode messages) {
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw ProblemException.badRequest("messages is required: a non-empty array of {role, content}");
        }
        var out = new ArrayList<Map.Entry<String, String>>();
        for (int i = 0; i < messages.size(); i++) {
            JsonNode m = messages.get(i);
            if (!m.path("role").isTextual()) {
                throw ProblemException.badRequest("messages[" + i + "].role is required");
            }
            JsonNode content = m.path("content");
            String text;
            if (content.isTextual()) {
                text = content.asText();
            } else if (content.isArray()) {
                var sb = new StringBuilder();
                for (JsonNode part : content) {
                    if (!"text".equals(part.path("type").asText())) {
                        throw ProblemException.badRequest("messages[" + i + "].content: only text parts are supported, got '"
                                + part.path("type").asText() + "'");
                    }
                    sb.append(part.path("text").asText());
                }
                text = sb.toString();
            } else if (content.isMissingNode() || content.isNull()) {
                text = "";
            } else {
                throw ProblemException.badRequest("messages[" + i + "].content must be a string or an array of text parts");
            }
            out.add(new AbstractMap.SimpleImmutableEntry<>(m.get("role").asText(), text));
        }
        return out;
    }

    private static int[] prompt(LoadedModel model, List<Map.Entry<String, String>> messages) {
        if (model.manifest().hf() != null) {
            throw new ProblemException(501, "Not implemented", "policy version " + model.version() + " is a HuggingFace model; its chat template"
                    + " (tokenizer_config.json) is not rendered yet: send /v1/completions a prompt laid out with it");
        }
        return new CompactChat(model.tokenizer()).conversation(messages);
    }

    /** Per sample: the role, then the text, then the finish reason; the usage last when asked for. */
    private static List<Map<String, Object>> chunks(Generator.Result r, String id, long created, boolean withUsage) {
        var chunks = new ArrayList<Map<String, Object>>();
        for (int i = 0; i < r.completions().size(); i++) {
            Completion c = r.completions().get(i);
            chunks.add(chunk(id, created, r.version(), i, Map.of("role", "assistant", "content", ""), null));
            chunks.add(chunk(id, created, r.version(), i, Map.of("content", c.text()), null));
            chunks.add(chunk(id, created, r.version(), i, Map.of(), Generator.finishReason(c)));
        }
        if (withUsage) {
            var last = CompletionsResource.header(id, created, r.version(), "chat.completion.chunk");
            last.put("choices", List.of());
            last.put("usage", CompletionsResource.usage(r));
            chunks.add(last);
        }
        return chunks;
    }

    private static Map<String, Object> chunk(String id, long created, long version, int index, Map<String, Object> delta, String finish) {
        var choice = new LinkedHashMap<String, Object>();
        choice.put("index", index);
        choice.put("delta", delta);
        choice.put("logprobs", null);
        choice.put("finish_reason", finish);
        var m = CompletionsResource.header(id, created, version, "chat.completion.chunk");
        m.put("choices", List.of(choice));
        return m;
    }

    /** OpenAI's chat log-probs: per token its text and log-prob. */
    private static Map<String, Object> logprobs(Completion c, Generator.Result r) {
        var content = new ArrayList<Map<String, Object>>();
        for (int k = 0; k < c.tokens().length; k++) {
            String token = r.tokenizer() == null ? String.valueOf(c.tokens()[k]) : r.tokenizer().decode(new int[] {c.tokens()[k]});
            content.add(Map.of("token", token, "logprob", c.logprobs()[k], "top_logprobs", List.of()));
        }
        return Map.of("content", content);
    }
}
