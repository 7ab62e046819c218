package ai.openalice.rl.inference.rest;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/** The OpenAI-compatible subset of a /v1/chat/completions request, plus {@code policy_version} to pin a version. */
public record ChatBody(
        String model,
        JsonNode messages,
        @JsonProperty("max_tokens") Integer maxTokens,
        @JsonProperty("max_completion_tokens") Integer maxCompletionTokens,
        Double temperature,
        @JsonProperty("top_p") Double topP,
        JsonNode stop,
        Long seed,
        Boolean logprobs,
        Integer n,
        Boolean stream,
        @JsonProperty("stream_options") JsonNode streamOptions,
        JsonNode tools,
        @JsonProperty("policy_version") Long policyVersion) {}
