package ai.openalice.rl.runner.service;

import ai.openalice.rl.agent.format.ToolCallFormat;
import ai.openalice.rl.agent.scripted.OraclePolicy;
import ai.openalice.rl.agent.scripted.RandomPolicy;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import ai.openalice.rl.policy.OpenAiPolicy;
import ai.openalice.rl.policy.Policy;
import ai.openalice.rl.policy.PolicyException;
import ai.openalice.rl.policy.TinkerPolicy;
import ai.openalice.rl.runner.config.RunnerConfig;
import ai.openalice.rl.tinker.TinkerClient;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The policy of each episode: the served model over HTTP, the Tinker engine that trains it, or — for fixtures and tests only — the
 * oracle replaying a gold patch read from a task file the operator names ({@code runner.oracle-tasks};
 * gold patches never travel on rollouts.requested), or a random agent.
 */
final class PolicyFactory {
    private final RunnerConfig config;
    private final Tokenizer tokenizer;
    private final ToolCallFormat format;
    private final Policy http;
    private final TinkerPolicy tinker;
    private final Map<String, String> goldPatches = new HashMap<>();
    private final Map<String, JsonNode> oracleTrajectories = new HashMap<>();

    PolicyFactory(RunnerConfig config, Tokenizer tokenizer, ToolCallFormat format, Supplier<String> bearer) {
        this.config = config;
        this.tokenizer = tokenizer;
        this.format = format;
        this.http = new OpenAiPolicy(URI.create(config.inferenceUrl()), null, -1, Duration.ofMinutes(5), config.policyOutageGrace(), bearer);
        this.tinker = config.policy() == RunnerConfig.PolicyKind.TINKER ? tinker(config, tokenizer) : null;
        if (config.policy() == RunnerConfig.PolicyKind.ORACLE) {
            var file = config.oracleTasks().orElseThrow(() -> new IllegalStateException("runner.policy=oracle needs runner.oracle-tasks"));
            for (var line : TaskReader.read(file)) {
                if (line instanceof TaskReader.Line.Valid v && v.task().patch() != null) {
                    goldPatches.put(v.task().instanceId(), v.task().patch());
                    if (v.task().raw().path("oracle_trajectory").isArray()) {
                        oracleTrajectories.put(v.task().instanceId(), v.task().raw().get("oracle_trajectory"));
                    }
                }
            }
        }
    }

    private static TinkerPolicy tinker(RunnerConfig config, Tokenizer tokenizer) {
        var t = config.tinker();
        URI url = t.url().orElseThrow(() -> new IllegalStateException("runner.policy=tinker needs runner.tinker.url (the engine the trainer trains on)"));
        String base = t.baseModel().orElseThrow(() -> new IllegalStateException(
                "runner.policy=tinker needs runner.tinker.base-model (the trainer's trainer.tinker.base-model: sampled until a checkpoint names sampler weights)"));
        if (config.modelDir().isEmpty()) {
            throw new IllegalStateException("runner.policy=tinker needs runner.model-dir (the base model's tokenizer and chat template lay out the episodes)");
        }
        String key = t.apiKeyFile().map(PolicyFactory::key).orElse(null);
        return new TinkerPolicy(new TinkerClient(url, key, config.policyOutageGrace()), base, tokenizer, config.maxContextTokens());
    }

    private static String key(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new IllegalStateException("runner.tinker.api-key-file " + file + " cannot be read: " + e.getMessage(), e);
        }
    }

    /** The Tinker engine's sampler, with {@code runner.policy=tinker}: checkpoints tell it which weights to sample at. */
    Optional<TinkerPolicy> tinker() {
        return Optional.ofNullable(tinker);
    }

    /** A policy for one episode (the scripted ones keep per-episode state). */
    Policy forEpisode(String taskId, UUID rolloutId) {
        return switch (config.policy()) {
            case HTTP -> http;
            case TINKER -> tinker;
            case ORACLE -> {
                String patch = goldPatches.get(taskId);
                if (patch == null) {
                    throw new PolicyException("the oracle has no gold patch for task " + taskId + " in " + config.oracleTasks().orElseThrow());
                }
                var trajectory = oracleTrajectories.get(taskId);
                var oracle = trajectory != null ? OraclePolicy.replaying(trajectory, tokenizer, format) : new OraclePolicy(patch, tokenizer, format);
                boolean fail = new Random(rolloutId.getMostSignificantBits() ^ rolloutId.getLeastSignificantBits()).nextDouble()
                        < config.oracleFailureProbability();
                yield fail ? oracle.withoutFix() : oracle;
            }
            case RANDOM -> new RandomPolicy(rolloutId.getLeastSignificantBits(), tokenizer, config.randomSubmitProbability());
        };
    }
}
