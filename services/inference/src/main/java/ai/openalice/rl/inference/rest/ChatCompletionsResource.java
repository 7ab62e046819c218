package ai.openalice.rl.inference.rest;

import ai.openalice.rl.auth.Roles;
import ai.openalice.rl.inference.engine.Engines;
import ai.openalice.rl.inference.service.LoadedModel;
import ai.openalice.rl.jinja.TemplateException;
import ai.openalice.rl.model.chat.ChatTemplate;
import ai.openalice.rl.model.chat.CompactChat;
import ai.openalice.rl.model.chat.ToolCalls;
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
import java.io.IOException;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * OpenAI-compatible chat completions. The messages are laid out in the served model's chat format —
 * the built-in model's compact layout (the same the agent loop trains on), or a HuggingFace
 * checkpoint's own chat template with {@code tools} — and sampled as completions are;
 * {@code stream: true} answers as Server-Sent Events of {@code chat.completion.chunk}s. With
 * {@code tools}, calls the model writes (Hermes {@code <tool_call>} or Llama 3.1 JSON) come back as
 * {@code tool_calls} with {@code finish_reason: tool_calls}, streamed too as OpenAI streams them.
 */
@Path("/v1")
@RolesAllowed(Roles.POLICY_CLIENT)
public class ChatCompletionsResource {
    @Inject
    Generator generator;

    @Inject
    Engines engines;

    @POST
    @Path("/chat/completions")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces({MediaType.APPLICATION_JSON, "text/event-stream"})
    public Response chat(ChatBody body) {
        if (body == null) {
            throw ProblemException.badRequest("the body must be a JSON object");
        }
        if (engines.gateway().isPresent()) {
            throw new ProblemException(501, "Not implemented", "this service forwards /v1/completions to the external "
                    + engines.gateway().get().engine().name() + " engine; ask the engine's own /v1/chat/completions for chat");
        }
        var messages = messages(body.messages());
        JsonNode tools = body.tools() != null && !body.tools().isNull() && !body.tools().isEmpty() ? body.tools() : null;
        if (tools != null && !tools.isArray()) {
            throw ProblemException.badRequest("tools must be an array of tool definitions");
        }
        Integer max = body.maxCompletionTokens() != null ? body.maxCompletionTokens() : body.maxTokens();
        var sampling = new Generator.Sampling(max, body.temperature(), body.topP(), body.stop(), body.seed(), body.n(), body.policyVersion());
        String id = "chatcmpl-" + UUID.randomUUID();
        long created = System.currentTimeMillis() / 1000;
        if (Boolean.TRUE.equals(body.stream())) {
            var st = generator.stream(model -> prompt(model, body.messages(), tools, messages), sampling);
            return Sse.streaming(out -> stream(st, out, id, created, tools != null, Sse.includeUsage(body.streamOptions())));
        }
        var r = generator.generate(model -> prompt(model, body.messages(), tools, messages), sampling);
        var replies = r.completions().stream().map(c -> Reply.of(c, tools != null)).toList();
        var choices = new ArrayList<Map<String, Object>>();
        for (int i = 0; i < r.completions().size(); i++) {
            Completion c = r.completions().get(i);
            Reply reply = replies.get(i);
            var m = new LinkedHashMap<String, Object>();
            m.put("index", i);
            var message = new LinkedHashMap<String, Object>();
            message.put("role", "assistant");
            message.put("content", reply.content());
            message.put("refusal", null);
            if (!reply.calls().isEmpty()) {
                message.put("tool_calls", reply.calls().stream().map(Call::whole).toList());
            }
            m.put("message", message);
            m.put("tokens", c.tokens());
            m.put("logprobs", Boolean.TRUE.equals(body.logprobs()) ? logprobs(c, r) : null);
            m.put("finish_reason", reply.finish());
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

    /**
     * The prompt: a HuggingFace checkpoint's chat template rendered over the messages as sent (with
     * {@code tools} and the generation prompt), else the built-in compact layout, which has no place
     * for tool definitions.
     */
    private static int[] prompt(LoadedModel model, JsonNode rawMessages, JsonNode tools, List<Map.Entry<String, String>> messages) {
        if (model.manifest().hf() == null) {
            if (tools != null) {
                throw ProblemException.badRequest("tools: the built-in model's compact layout has no place for tool definitions; describe the tools"
                        + " in a system message and parse the calls from the text");
            }
            return new CompactChat(model.tokenizer()).conversation(messages);
        }
        ChatTemplate template;
        try {
            template = model.chatTemplate(tools != null);
        } catch (TemplateException e) {
            throw new ProblemException(501, "Not implemented", "policy version " + model.version() + " has no usable chat template: " + e.getMessage());
        }
        try {
            return model.tokenizer().encode(template.render(rawMessages, tools, true, Map.of()));
        } catch (TemplateException e) {
            throw ProblemException.badRequest("messages: the chat template of policy version " + model.version() + " cannot render them: "
                    + e.getMessage());
        }
    }

    /** Call {@code j} of a choice as OpenAI streams one: its id, type and name with empty arguments, then the arguments. */
    private static void sendCall(Sse.Chunks out, String id, long created, long v, int choice, int j, Call call) throws IOException {
        out.send(chunk(id, created, v, choice, Map.of("tool_calls", List.of(call.head(j))), null));
        out.send(chunk(id, created, v, choice, Map.of("tool_calls", List.of(Map.of("index", j, "function", Map.of("arguments",
                call.arguments())))), null));
    }

    /** The calls in {@code text}; none when one of them cannot be used (the whole message would then be text). */
    private static List<ToolCalls.Call> parsed(String text) {
        try {
            return ToolCalls.parse(text);
        } catch (ToolCalls.Malformed e) {
            return List.of();
        }
    }

    /**
     * What one sample says: its text, or — when the request offered tools and the text holds calls
     * that parse — the text before the first call (null when none) and the calls, finished as
     * {@code tool_calls}. A call that does not parse stays text: the client could not run it.
     */
    record Reply(String content, List<Call> calls, String finish) {
        static Reply of(Completion c, boolean toolsOffered) {
            List<ToolCalls.Call> calls;
            try {
                calls = toolsOffered ? ToolCalls.parse(c.text()) : List.of();
            } catch (ToolCalls.Malformed e) {
                calls = List.of();
            }
            if (calls.isEmpty()) {
                return new Reply(c.text(), List.of(), Generator.finishReason(c));
            }
            String before = c.text().substring(0, calls.getFirst().start()).replace("<tool_call>", "").strip();
            return new Reply(before.isEmpty() ? null : before, calls.stream().map(Call::of).toList(), "tool_calls");
        }
    }

    /** A tool call as the client gets it: an id of its own, the function's name, its arguments as a JSON string. */
    record Call(String id, String name, String arguments) {
        static Call of(ToolCalls.Call call) {
            return new Call("call_" + UUID.randomUUID().toString().replace("-", "").substring(0, 24), call.name(), call.arguments().toString());
        }

        /** In a message: id, type and the function whole. */
        Map<String, Object> whole() {
            return head(null, arguments);
        }

        /** The first streamed delta of call {@code index}: id, type, name and empty arguments (the next delta carries them). */
        Map<String, Object> head(int index) {
            return head(index, "");
        }

        private Map<String, Object> head(Integer index, String args) {
            var out = new LinkedHashMap<String, Object>();
            if (index != null) {
                out.put("index", index);
            }
            out.put("id", id);
            out.put("type", "function");
            var f = new LinkedHashMap<String, Object>();
            f.put("name", name);
            f.put("arguments", args);
            out.put("function", f);
            return out;
        }
    }

    /**
     * Per sample: the role first; the content as it is sampled (a token's text once it is settled —
     * not half a character, not what may begin a stop string or a {@code <tool_call>}); each tool call
     * as soon as its {@code </tool_call>} is sampled, as OpenAI streams one — its id, type and name with
     * empty arguments, then the arguments (whole: a call is sent once it parses, so a client never runs
     * half of one); when the sample ends, the rest of the content, the calls not yet sent and the
     * finish reason; the usage last when asked for. Content streamed before a call keeps its leading
     * whitespace, which the whole message strips. A later call that does not parse makes the sample's
     * text content, as in the whole message; calls already sent stay sent.
     */
    private static void stream(Generator.Streaming st, Sse.Chunks out, String id, long created, boolean toolsOffered, boolean withUsage)
            throws IOException {
        long v = st.version();
        var texts = new StreamText[st.n()];
        int[] callsSent = new int[st.n()];
        for (int i = 0; i < texts.length; i++) {
            texts[i] = new StreamText(st.tokenizer(), st.stop(), toolsOffered);
            out.send(chunk(id, created, v, i, Map.of("role", "assistant", "content", ""), null));
        }
        int done = 0;
        int completionTokens = 0;
        while (done < st.n()) {
            switch (st.next()) {
                case Generator.Event.Tokens t -> {
                    String text = texts[t.index()].next(t.tokens(), t.logprobs()).text();
                    if (!text.isEmpty()) {
                        out.send(chunk(id, created, v, t.index(), Map.of("content", text), null));
                    }
                    String closed = texts[t.index()].closedCalls();
                    if (closed != null) {
                        var calls = parsed(closed);
                        for (int j = callsSent[t.index()]; j < calls.size(); j++) {
                            sendCall(out, id, created, v, t.index(), j, Call.of(calls.get(j)));
                        }
                        callsSent[t.index()] = Math.max(callsSent[t.index()], calls.size());
                    }
                }
                case Generator.Event.Done d -> {
                    Completion c = d.completion();
                    Reply reply = Reply.of(c, toolsOffered);
                    String rest = texts[d.index()].finish(c, reply.content()).text();
                    if (!rest.isEmpty()) {
                        out.send(chunk(id, created, v, d.index(), Map.of("content", rest), null));
                    }
                    for (int j = callsSent[d.index()]; j < reply.calls().size(); j++) {
                        sendCall(out, id, created, v, d.index(), j, reply.calls().get(j));
                    }
                    out.send(chunk(id, created, v, d.index(), Map.of(), callsSent[d.index()] > 0 ? "tool_calls" : reply.finish()));
                    completionTokens += c.tokens().length;
                    done++;
                }
                case Generator.Event.Failed f -> throw new ProblemException(500, "Generation failed", f.cause().getMessage());
            }
        }
        if (withUsage) {
            var last = CompletionsResource.header(id, created, v, "chat.completion.chunk");
            last.put("choices", List.of());
            last.put("usage", CompletionsResource.usage(st.promptTokens(), completionTokens));
            out.send(last);
        }
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
