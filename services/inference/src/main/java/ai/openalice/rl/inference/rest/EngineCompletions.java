package ai.openalice.rl.inference.rest;

import ai.openalice.rl.inference.engine.EngineException;
import ai.openalice.rl.inference.engine.EngineGateway;
import ai.openalice.rl.inference.engine.ServingEngine;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * {@code /v1/completions} answered by the external engine: token-id prompts forwarded as they are,
 * the answer in this service's shape (tokens, log-probs, and the {@code policy_version} that
 * produced it). An engine that cannot be reached is a 503 (the runner waits it out), one that
 * refuses a 502 with its words, a pinned version it does not hold a 404.
 */
final class EngineCompletions {
    private EngineCompletions() {}

    static Map<String, Object> complete(EngineGateway gateway, CompletionBody body) {
        if (Boolean.TRUE.equals(body.stream())) {
            throw ProblemException.badRequest("stream: completions from the external engine are answered whole; ask without stream");
        }
        if (body.n() != null && body.n() != 1) {
            throw ProblemException.badRequest("n: the external engine is asked for one completion at a time, got " + body.n());
        }
        var request = new ServingEngine.Request(ids(body.prompt()), body.maxTokens() == null ? 16 : body.maxTokens(),
                body.temperature() == null ? 1.0 : body.temperature(), body.topP() == null ? 1.0 : body.topP(), body.seed(), stops(body.stop()));
        EngineGateway.Answer a;
        try {
            a = gateway.complete(request, body.policyVersion());
        } catch (EngineGateway.NotLoaded e) {
            throw new ProblemException(404, "Unknown version", e.getMessage());
        } catch (EngineException e) {
            throw e.unavailable() ? new ProblemException(503, "Engine unavailable", e.getMessage()) : new ProblemException(502, "Engine error", e.getMessage());
        }
        var c = a.completion();
        var choice = new LinkedHashMap<String, Object>();
        choice.put("index", 0);
        choice.put("text", c.text());
        choice.put("tokens", c.tokens());
        choice.put("logprobs", Map.of("token_logprobs", c.logprobs(), "token_ids", c.tokens()));
        choice.put("finish_reason", c.finishReason());
        var out = CompletionsResource.header("cmpl-" + UUID.randomUUID(), System.currentTimeMillis() / 1000, a.version(), "text_completion");
        out.put("choices", List.of(choice));
        out.put("usage", Map.of("prompt_tokens", c.promptTokens(), "completion_tokens", c.tokens().length, "total_tokens",
                c.promptTokens() + c.tokens().length));
        return out;
    }

    private static int[] ids(JsonNode p) {
        if (p == null || !p.isArray() || p.isEmpty()) {
            throw ProblemException.badRequest("prompt: the external engine is sent token ids; give a non-empty array of them");
        }
        int[] ids = new int[p.size()];
        for (int i = 0; i < ids.length; i++) {
            if (!p.get(i).isIntegralNumber() || !p.get(i).canConvertToInt() || p.get(i).asInt() < 0) {
                throw ProblemException.badRequest("prompt[" + i + "] must be a token id, got " + p.get(i));
            }
            ids[i] = p.get(i).asInt();
        }
        return ids;
    }

    private static List<String> stops(JsonNode s) {
        var out = new ArrayList<String>();
        if (s == null || s.isNull()) {
            return out;
        }
        if (s.isTextual()) {
            out.add(s.asText());
        } else if (s.isArray()) {
            s.forEach(x -> out.add(x.asText()));
        } else {
            throw ProblemException.badRequest("stop must be a string or an array of strings");
        }
        return out;
    }
}
