package ai.openalice.rl.runner.service;

import ai.openalice.rl.agent.format.ToolCallFormat;
import ai.openalice.rl.agent.scripted.OraclePolicy;
import ai.openalice.rl.agent.scripted.RandomPolicy;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import ai.openalice.rl.policy.OpenAiPolicy;
import ai.openalice.rl.policy.Policy;
import ai.openalice.rl.policy.PolicyException;
import ai.openalice.rl.runner.config.RunnerConfig;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The policy of each episode: the served model over HTTP, or — for fixtures and tests only — the
 * oracle replaying a gold patch read from a task file the operator names ({@code runner.oracle-tasks};
 * gold patches never travel on rollouts.requested), or a random agent.
 */
final class PolicyFactory {
    private final RunnerConfig config;
    private final Tokenizer tokenizer;
    private final ToolCallFormat format;
    private final Policy http;
    private final Map<String, String> goldPatches = new HashMap<>();
    private final Map<String, JsonNode> oracleTrajectories = new HashMap<>();

    PolicyFactory(RunnerConfig config, Tokenizer tokenizer, ToolCallFormat format, Supplier<String> bearer) {
        this.config = config;
        this.tokenizer = tokenizer;
        this.format = format;
        this.http = new OpenAiPolicy(URI.create(config.inferenceUrl()), null, -1, Duration.ofMinutes(5), config.policyOutageGrace(), bearer);
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

    /** A policy for one episode (the scripted ones keep per-episode state). */
    Policy forEpisode(String taskId, UUID rolloutId) {
        return switch (config.policy()) {
            case HTTP -> http;
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
