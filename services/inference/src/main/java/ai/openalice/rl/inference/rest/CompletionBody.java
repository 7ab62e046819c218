package ai.openalice.rl.inference.rest;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/** The OpenAI-compatible subset of a /v1/completions request, plus {@code policy_version} to pin a version. */
public record CompletionBody(
        String model,
        JsonNode prompt,
        @JsonProperty("max_tokens") Integer maxTokens,
        Double temperature,
        @JsonProperty("top_p") Double topP,
        JsonNode stop,
        Long seed,
        Integer logprobs,
        Integer n,
        Boolean stream,
        @JsonProperty("stream_options") JsonNode streamOptions,
        @JsonProperty("policy_version") Long policyVersion) {}
