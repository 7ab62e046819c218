package ai.openalice.rl.policy;

import ai.openalice.rl.retry.Backoff;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * A policy served over HTTP by an OpenAI-compatible {@code /v1/completions} endpoint: the
 * inference service, or vLLM / SGLang for large models. The prompt is sent as token ids and the
 * completion's token ids and log-probs are read back — from {@code choices[].tokens} (the
 * inference service) or from {@code logprobs.tokens} as {@code token_id:N} (vLLM with
 * {@code return_tokens_as_token_ids}). The policy version comes from {@code policy_version}, or
 * is {@code fixedVersion} for servers that do not report one.
 */
public final class OpenAiPolicy implements Policy {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI completions;
    private final String model;
    private final long fixedVersion;
    private final HttpClient http;
    private final Supplier<String> bearer;
    private final Duration timeout;
    private final Duration outageGrace;

    public OpenAiPolicy(URI baseUrl, String model, long fixedVersion, Duration timeout) {
        this(baseUrl, model, fixedVersion, timeout, Duration.ZERO);
    }

    /**
     * {@code outageGrace}: how long a request keeps trying while the server cannot be reached or
     * answers 503 (a restart, a checkpoint swap), with pauses from 0.5 s doubling to 5 s — so that a
     * routine restart of tens of seconds costs an episode a wait, not an attempt.
     */
    public OpenAiPolicy(URI baseUrl, String model, long fixedVersion, Duration timeout, Duration outageGrace) {
        this(baseUrl, model, fixedVersion, timeout, outageGrace, () -> null);
    }

    /**
     * {@code bearer}: the token sent as {@code Authorization: Bearer} with every request, asked for
     * anew each time (a rotated token is taken at once); null from it: no header. The inference
     * service wants one holding {@code policy-client}; an OpenAI-compatible engine started with an
     * API key (vLLM's {@code --api-key}) takes that key the same way.
     */
    public OpenAiPolicy(URI baseUrl, String model, long fixedVersion, Duration timeout, Duration outageGrace, Supplier<String> bearer) {
        this.bearer = bearer;
        this.completions = baseUrl.resolve(baseUrl.getPath().endsWith("/") ? "v1/completions" : baseUrl.getPath() + "/v1/completions");
        this.model = model;
        this.fixedVersion = fixedVersion;
        this.timeout = timeout;
        this.outageGrace = outageGrace;
        // HTTP/1.1: an h2c upgrade request makes uvicorn (vLLM's, SGLang's server) drop the body
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
    }

    @Override
    public String name() {
        return "openai-compatible " + completions;
    }

    @Override
    public Completion complete(CompletionRequest r) {
        ObjectNode body = JSON.createObjectNode();
        if (model != null) {
            body.put("model", model);
        }
        var prompt = body.putArray("prompt");
        for (int t : r.prompt()) {
            prompt.add(t);
        }
        body.put("max_tokens", r.maxTokens());
        body.put("temperature", r.temperature());
        body.put("top_p", r.topP());
        if (r.seed() != null) {
            body.put("seed", r.seed());
        }
        if (!r.stop().isEmpty()) {
            var stop = body.putArray("stop");
            r.stop().forEach(stop::add);
        }
        if (r.policyVersion() != null) {
            body.put("policy_version", r.policyVersion());
        }
        body.put("logprobs", 1);
        body.put("return_tokens_as_token_ids", true);
        HttpResponse<String> resp = send(body);
        if (resp.statusCode() != 200) {
            throw new PolicyException("policy server answered " + resp.statusCode() + ": " + abbreviate(resp.body()));
        }
        try {
            return parse(JSON.readTree(resp.body()));
        } catch (IOException | RuntimeException e) {
            throw new PolicyException("cannot read the policy server's answer: " + e.getMessage() + " in " + abbreviate(resp.body()), e);
        }
    }

    /** Sends the request, waiting out an outage of up to {@code outageGrace} (unreachable, or 503). */
    private HttpResponse<String> send(ObjectNode body) {
        long deadline = System.nanoTime() + outageGrace.toNanos();
        var backoff = Backoff.of(Duration.ofMillis(500), Duration.ofSeconds(5));
        long pause = backoff.nextMillis();
        while (true) {
            try {
                var request = HttpRequest.newBuilder(completions).timeout(timeout).header("Content-Type", "application/json");
                String token = bearer.get();
                if (token != null) {
                    request.header("Authorization", "Bearer " + token);
                }
                var resp = http.send(request.POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (resp.statusCode() != 503 || System.nanoTime() + pause * 1_000_000 > deadline) {
                    return resp;
                }
            } catch (HttpTimeoutException e) {
                throw new PolicyException("policy server " + completions + " did not answer within " + timeout + ": " + e.getMessage(), e);
            } catch (IOException e) {
                if (System.nanoTime() + pause * 1_000_000 > deadline) {
                    String waited = outageGrace.isZero() ? "" : " (still, after waiting " + outageGrace.toSeconds() + " s)";
                    throw new PolicyException("policy server " + completions + " unreachable" + waited + ": " + e.getMessage(), e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PolicyException("interrupted while waiting for " + completions, e);
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PolicyException("interrupted while waiting for " + completions, e);
            }
            pause = backoff.nextMillis();
        }
    }

    private Completion parse(JsonNode root) {
        JsonNode choice = root.path("choices").path(0);
        JsonNode lp = choice.path("logprobs");
        double[] logprobs = new double[lp.path("token_logprobs").size()];
        for (int i = 0; i < logprobs.length; i++) {
            logprobs[i] = lp.path("token_logprobs").get(i).asDouble();
        }
        int[] tokens;
        if (choice.path("tokens").isArray()) {
            tokens = ints(choice.get("tokens"));
        } else if (lp.path("tokens").isArray()) {
            tokens = new int[lp.get("tokens").size()];
            for (int i = 0; i < tokens.length; i++) {
                String t = lp.get("tokens").get(i).asText();
                if (!t.startsWith("token_id:")) {
                    throw new IllegalArgumentException("logprobs.tokens[" + i + "] is '" + t + "', not token_id:N; start the server so that it"
                            + " returns token ids (vLLM: return_tokens_as_token_ids)");
                }
                tokens[i] = Integer.parseInt(t.substring("token_id:".length()));
            }
        } else {
            throw new IllegalArgumentException("the answer has no token ids");
        }
        if (tokens.length != logprobs.length) {
            throw new IllegalArgumentException(tokens.length + " tokens but " + logprobs.length + " log-probs");
        }
        Completion.FinishReason finish = switch (choice.path("finish_reason").asText("length")) {
            case "stop" -> Completion.FinishReason.STOP;
            default -> Completion.FinishReason.LENGTH;
        };
        long version = root.hasNonNull("policy_version") ? root.get("policy_version").asLong() : fixedVersion;
        return new Completion(tokens, logprobs, choice.path("text").asText(""), finish, version);
    }

    private static int[] ints(JsonNode a) {
        int[] out = new int[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.get(i).asInt();
        }
        return out;
    }

    private static String abbreviate(String s) {
        return s.length() > 500 ? s.substring(0, 500) + "…" : s;
    }
}
