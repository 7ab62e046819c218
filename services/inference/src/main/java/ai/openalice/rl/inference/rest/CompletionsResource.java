package ai.openalice.rl.inference.rest;

import ai.openalice.rl.inference.service.BatchScheduler;
import ai.openalice.rl.inference.service.LoadedModel;
import ai.openalice.rl.inference.service.ModelRegistry;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import com.fasterxml.jackson.databind.JsonNode;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** OpenAI-compatible completions and models, answering with tokens, log-probs and the policy version. */
@Path("/v1")
@Produces(MediaType.APPLICATION_JSON)
public class CompletionsResource {
    static final int MAX_N = 16;

    @Inject
    ModelRegistry registry;

    @Inject
    BatchScheduler scheduler;

    @GET
    @Path("/models")
    public Map<String, Object> models() {
        var data = new ArrayList<Map<String, Object>>();
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
    public Map<String, Object> complete(CompletionBody body) {
        if (body == null) {
            throw ProblemException.badRequest("the body must be a JSON object");
        }
        int n = body.n() == null ? 1 : body.n();
        if (n < 1 || n > MAX_N) {
            throw ProblemException.badRequest("n must be in 1.." + MAX_N + ", got " + n);
        }
        LoadedModel model = acquire(body.policyVersion());
        var futures = new ArrayList<CompletableFuture<Completion>>();
        int acquired = 1;
        try {
            int[] prompt = prompt(body.prompt(), model);
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    model = acquire(body.policyVersion() == null ? model.version() : body.policyVersion());
                    acquired++;
                }
                CompletionRequest req = request(body, prompt, i, model.version());
                var f = scheduler.submit(req, model);
                if (f.isEmpty()) {
                    throw new ProblemException(503, "Busy", "the request queue is full; retry later");
                }
                futures.add(f.get());
                acquired--;
            }
        } catch (IllegalArgumentException e) {
            throw ProblemException.badRequest(e.getMessage());
        } finally {
            for (int i = 0; i < acquired; i++) {
                registry.release(model);
            }
        }
        var choices = new ArrayList<Map<String, Object>>();
        long version = -1;
        int completionTokens = 0;
        for (int i = 0; i < futures.size(); i++) {
            Completion c = await(futures.get(i));
            version = c.policyVersion();
            completionTokens += c.tokens().length;
            choices.add(choice(i, c, body.logprobs() != null, registry.current() == null ? null : registry.current().tokenizer()));
        }
        int promptTokens = prompt(body.prompt(), null).length;
        var out = new LinkedHashMap<String, Object>();
        out.put("id", "cmpl-" + UUID.randomUUID());
        out.put("object", "text_completion");
        out.put("created", System.currentTimeMillis() / 1000);
        out.put("model", "alice-gpt-v" + version);
        out.put("policy_version", version);
        out.put("choices", choices);
        out.put("usage", Map.of("prompt_tokens", promptTokens, "completion_tokens", completionTokens,
                "total_tokens", promptTokens + completionTokens));
        return out;
    }

    private LoadedModel acquire(Long pin) {
        return registry.acquire(pin).orElseThrow(() -> pin == null
                ? new ProblemException(503, "No model", "no policy version is loaded yet")
                : new ProblemException(404, "Unknown version", "policy version " + pin + " is not loaded; loaded: " + registry.versions()));
    }

    private static int[] prompt(JsonNode p, LoadedModel model) {
        if (p == null || p.isNull()) {
            throw new IllegalArgumentException("prompt is required: a string or an array of token ids");
        }
        if (p.isTextual()) {
            return model == null ? new ai.openalice.rl.model.tokenizer.ByteTokenizer().encode(p.asText()) : model.tokenizer().encode(p.asText());
        }
        if (p.isArray()) {
            int[] ids = new int[p.size()];
            for (int i = 0; i < ids.length; i++) {
                if (!p.get(i).canConvertToInt() || !p.get(i).isIntegralNumber()) {
                    throw new IllegalArgumentException("prompt[" + i + "] must be a token id, got " + p.get(i));
                }
                ids[i] = p.get(i).asInt();
                int vocab = model == null ? Integer.MAX_VALUE : model.manifest().vocabSize();
                if (ids[i] < 0 || ids[i] >= vocab) {
                    throw new IllegalArgumentException("prompt[" + i + "] = " + ids[i] + " is outside the vocabulary (0.." + (vocab - 1) + ")");
                }
            }
            return ids;
        }
        throw new IllegalArgumentException("prompt must be a string or an array of token ids");
    }

    private static CompletionRequest request(CompletionBody b, int[] prompt, int i, long version) {
        List<String> stop = new ArrayList<>();
        if (b.stop() != null && !b.stop().isNull()) {
            if (b.stop().isTextual()) {
                stop.add(b.stop().asText());
            } else if (b.stop().isArray()) {
                b.stop().forEach(s -> stop.add(s.asText()));
            } else {
                throw new IllegalArgumentException("stop must be a string or an array of strings");
            }
        }
        Long seed = b.seed() == null ? null : b.seed() + i;
        return new CompletionRequest(prompt, b.maxTokens() == null ? 16 : b.maxTokens(), b.temperature() == null ? 1.0 : b.temperature(),
                b.topP() == null ? 1.0 : b.topP(), seed, stop, version);
    }

    private static Completion await(CompletableFuture<Completion> f) {
        try {
            return f.get(10, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            throw new ProblemException(500, "Generation failed", e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new ProblemException(504, "Timeout", "the generation did not finish in 10 minutes");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProblemException(503, "Interrupted", "the service is shutting down");
        }
    }

    private static Map<String, Object> choice(int i, Completion c, boolean withLogprobs, ai.openalice.rl.model.tokenizer.Tokenizer t) {
        var m = new LinkedHashMap<String, Object>();
        m.put("index", i);
        m.put("text", c.text());
        m.put("tokens", c.tokens());
        if (withLogprobs) {
            var strings = new ArrayList<String>();
            for (int id : c.tokens()) {
                strings.add(t == null ? String.valueOf(id) : t.decode(new int[] {id}));
            }
            m.put("logprobs", Map.of("tokens", strings, "token_logprobs", c.logprobs(), "token_ids", c.tokens()));
        }
        m.put("finish_reason", switch (c.finish()) {
            case STOP -> "stop";
            case LENGTH -> "length";
            case CONTEXT -> "length";
        });
        return m;
    }
}
