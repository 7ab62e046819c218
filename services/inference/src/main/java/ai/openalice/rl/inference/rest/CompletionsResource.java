package ai.openalice.rl.inference.rest;

import ai.openalice.rl.auth.Roles;
import ai.openalice.rl.inference.engine.Engines;
import ai.openalice.rl.inference.service.LoadedModel;
import ai.openalice.rl.inference.service.ModelRegistry;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import ai.openalice.rl.policy.Completion;
import com.fasterxml.jackson.databind.JsonNode;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * OpenAI-compatible completions and models, answering with tokens, log-probs and the policy
 * version; {@code stream: true} answers as Server-Sent Events in OpenAI's chunk format.
 */
@Path("/v1")
@RolesAllowed(Roles.POLICY_CLIENT)
public class CompletionsResource {
    @Inject
    ModelRegistry registry;

    @Inject
    Generator generator;

    @Inject
    Engines engines;

    @GET
    @Path("/models")
    @Produces(MediaType.APPLICATION_JSON)
    public Map<String, Object> models() {
        var data = new ArrayList<Map<String, Object>>();
        var gateway = engines.gateway();
        if (gateway.isPresent()) {
            List<Long> versions = gateway.get().versions();
            for (long v : versions) {
                data.add(Map.of("id", "alice-gpt-v" + v, "object", "model", "owned_by", "alice-rl", "policy_version", v,
                        "current", v == versions.getLast(), "engine", gateway.get().engine().name()));
            }
            return Map.of("object", "list", "data", data);
        }
        LoadedModel current = registry.current();
        for (long v : registry.versions()) {
            data.add(Map.of("id", "alice-gpt-v" + v, "object", "model", "owned_by", "alice-rl", "policy_version", v,
                    "current", current != null && current.version() == v));
        }
        return Map.of("object", "list", "data", data);
    }

    @POST
    @Path("/completions")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces({MediaType.APPLICATION_JSON, "text/event-stream"})
    public Response complete(CompletionBody body) {
        if (body == null) {
            throw ProblemException.badRequest("the body must be a JSON object");
        }
        if (engines.gateway().isPresent()) {
            return Response.ok(EngineCompletions.complete(engines.gateway().get(), body), MediaType.APPLICATION_JSON).build();
        }
        var sampling = new Generator.Sampling(body.maxTokens(), body.temperature(), body.topP(), body.stop(), body.seed(), body.n(),
                body.policyVersion());
        String id = "cmpl-" + UUID.randomUUID();
        long created = System.currentTimeMillis() / 1000;
        if (Boolean.TRUE.equals(body.stream())) {
            var st = generator.stream(model -> prompt(body.prompt(), model), sampling);
            return Sse.streaming(out -> stream(st, out, id, created, body.logprobs() != null, Sse.includeUsage(body.streamOptions())));
        }
        var r = generator.generate(model -> prompt(body.prompt(), model), sampling);
        var choices = new ArrayList<Map<String, Object>>();
        for (int i = 0; i < r.completions().size(); i++) {
            Completion c = r.completions().get(i);
            var m = new LinkedHashMap<String, Object>();
            m.put("index", i);
            m.put("text", c.text());
            m.put("tokens", c.tokens());
            m.put("logprobs", body.logprobs() != null ? logprobs(c, r.tokenizer()) : null);
            m.put("finish_reason", Generator.finishReason(c));
            choices.add(m);
        }
        var out = header(id, created, r.version(), "text_completion");
        out.put("choices", choices);
        out.put("usage", usage(r));
        return Response.ok(out, MediaType.APPLICATION_JSON).build();
    }

    /**
     * Per sample, a chunk for each token as it is sampled (its text, id and log-prob; text that may
     * still change — half a character, the start of a stop string — waits for the tokens that settle
     * it), then one with the rest and the finish reason; the usage last when asked for.
     */
    private static void stream(Generator.Streaming st, Sse.Chunks out, String id, long created, boolean withLogprobs, boolean withUsage)
            throws IOException {
        var texts = new StreamText[st.n()];
        for (int i = 0; i < texts.length; i++) {
            texts[i] = new StreamText(st.tokenizer(), st.stop(), false);
        }
        int done = 0;
        int completionTokens = 0;
        while (done < st.n()) {
            switch (st.next()) {
                case Generator.Event.Tokens t -> {
                    var d = texts[t.index()].next(t.tokens(), t.logprobs());
                    if (!d.isEmpty()) {
                        out.send(chunk(id, created, st.version(), choice(t.index(), d, withLogprobs, st.tokenizer(), null)));
                    }
                }
                case Generator.Event.Done d -> {
                    Completion c = d.completion();
                    var rest = texts[d.index()].finish(c, c.text());
                    out.send(chunk(id, created, st.version(), choice(d.index(), rest, withLogprobs, st.tokenizer(), Generator.finishReason(c))));
                    completionTokens += c.tokens().length;
                    done++;
                }
                case Generator.Event.Failed f -> throw new ProblemException(500, "Generation failed", f.cause().getMessage());
            }
        }
        if (withUsage) {
            var last = header(id, created, st.version(), "text_completion");
            last.put("choices", List.of());
            last.put("usage", usage(st.promptTokens(), completionTokens));
            out.send(last);
        }
    }

    private static Map<String, Object> choice(int index, StreamText.Delta d, boolean withLogprobs, Tokenizer t, String finish) {
        var m = new LinkedHashMap<String, Object>();
        m.put("index", index);
        m.put("text", d.text());
        m.put("tokens", d.tokens());
        m.put("logprobs", withLogprobs ? logprobs(d.tokens(), d.logprobs(), t) : null);
        m.put("finish_reason", finish);
        return m;
    }

    private static Map<String, Object> chunk(String id, long created, long version, Map<String, Object> choice) {
        var m = header(id, created, version, "text_completion");
        m.put("choices", List.of(choice));
        return m;
    }

    static LinkedHashMap<String, Object> header(String id, long created, long version, String object) {
        var out = new LinkedHashMap<String, Object>();
        out.put("id", id);
        out.put("object", object);
        out.put("created", created);
        out.put("model", "alice-gpt-v" + version);
        out.put("policy_version", version);
        return out;
    }

    static Map<String, Object> usage(Generator.Result r) {
        return usage(r.promptTokens(), r.completionTokens());
    }

    static Map<String, Object> usage(int promptTokens, int completionTokens) {
        return Map.of("prompt_tokens", promptTokens, "completion_tokens", completionTokens, "total_tokens", promptTokens + completionTokens);
    }

    private static Map<String, Object> logprobs(Completion c, Tokenizer t) {
        return logprobs(c.tokens(), c.logprobs(), t);
    }

    private static Map<String, Object> logprobs(int[] tokens, double[] logprobs, Tokenizer t) {
        var strings = new ArrayList<String>();
        for (int id : tokens) {
            strings.add(t == null ? String.valueOf(id) : t.decode(new int[] {id}));
        }
        return Map.of("tokens", strings, "token_logprobs", logprobs, "token_ids", tokens);
    }

    private static int[] prompt(JsonNode p, LoadedModel model) {
        if (p == null || p.isNull()) {
            throw new IllegalArgumentException("prompt is required: a string or an array of token ids");
        }
        if (p.isTextual()) {
            return model.tokenizer().encode(p.asText());
        }
        if (p.isArray()) {
            int[] ids = new int[p.size()];
            int vocab = model.manifest().vocabSize();
            for (int i = 0; i < ids.length; i++) {
                if (!p.get(i).canConvertToInt() || !p.get(i).isIntegralNumber()) {
                    throw new IllegalArgumentException("prompt[" + i + "] must be a token id, got " + p.get(i));
                }
                ids[i] = p.get(i).asInt();
                if (ids[i] < 0 || ids[i] >= vocab) {
                    throw new IllegalArgumentException("prompt[" + i + "] = " + ids[i] + " is outside the vocabulary (0.." + (vocab - 1) + ")");
                }
            }
            return ids;
        }
        throw new IllegalArgumentException("prompt must be a string or an array of token ids");
    }
}
