package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.train.Supervisor;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.testkit.PythonReference;
import ai.openalice.rl.testkit.RealTinker;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The whole loop on the real Tinker engine (SkyRL's server, JAX on CPU), learner and sampler both:
 * the runner samples the tiny Qwen3 the engine was started with ({@code runner.policy=tinker}), one
 * GRPO++ step runs on the engine (forward, ppo forward_backward, optim_step), v1 names the engine's
 * sampler weights on checkpoints.published and the next episodes are sampled at them; v1 — those
 * weights fetched as a PEFT adapter, merged into the ONNX graph, with the engine's saved state named
 * in tinker.json — is also served by the inference service (for runners that sample there).
 */
class TinkerLoopIT {
    final String suffix = ".e2etk" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void aQwen3IsTrainedOnTheTinkerEngineAndItsAdapterServedByInference() throws Exception {
        try (var s = loop(suffix, List.of("-Drunner.tool-call-format=json", "-Drunner.system-prompt=full"))) {
            LoopIT.publish(HfLoopIT.suite(suffix), suffix, 2);
            var v1 = LoopIT.awaitCheckpoint(suffix, 1, Duration.ofMinutes(8));
            assertEquals(1, v1.step());
            Path dir = Path.of(URI.create(v1.onnx().uri())).getParent();
            for (String f : List.of("adapter_config.json", "adapter_model.safetensors", "model.onnx", "tokenizer.json", "tinker.json")) {
                assertTrue(Files.isRegularFile(dir.resolve(f)), "v1 holds " + f);
            }
            assertFalse(Files.exists(dir.resolve("model.safetensors")), "the base stays in its folder");
            var saved = EventCodec.mapper().readTree(dir.resolve("tinker.json").toFile());
            assertEquals(1, saved.get("optimizer_step").asLong(), "one optim_step on the engine: " + saved);
            assertEquals(4, saved.get("rank").asInt());
            assertTrue(saved.get("state").asText().startsWith("tinker://"), saved.toString());
            assertEquals(saved.get("sampler").asText(), v1.sampler(), "checkpoints.published names the engine's sampler weights");

            var trainer = EventCodec.mapper().readTree(s.get("trainer", "/status"));
            assertTrue(trainer.get("samples.trained").asLong() >= 2, trainer.toString());
            Trajectory first = HfLoopIT.sampledEpisode(suffix, Duration.ofMinutes(2));
            assertEquals(0, first.turns().getFirst().policyVersion(), "the first episodes are the base model's");
            // the next episodes are drawn from v1's sampler weights on the engine, and say so turn by turn
            Trajectory next = TopicScan.<RolloutCompleted>first(Topic.ROLLOUTS_COMPLETED, suffix, Duration.ofMinutes(6),
                    done -> !HfLoopIT.trajectory(done).turns().isEmpty() && HfLoopIT.trajectory(done).turns().getFirst().policyVersion() == 1)
                    .map(HfLoopIT::trajectory).orElseThrow(() -> new AssertionError("no episode sampled at v1; see the logs in " + LoopIT.LOGS));
            assertTrue(next.turns().stream().allMatch(t -> t.policyVersion() >= 1 && !t.completionTokenIds().isEmpty()
                    && t.completionTokenIds().stream().allMatch(id -> id >= 0 && id < 272)), "v1's tokens of the model's vocabulary, every turn");
            LoopIT.awaitServed(s, 1);
        }
    }

    /**
     * An agent program (AgentProgramLoopIT's client of our own) samples from the Tinker engine
     * through the runner's endpoint ({@code runner.policy=tinker}): its calls are recorded with the
     * engine's tokens and log-probabilities and the version that drew them, and the engine trains
     * on them.
     */
    @Test
    void anAgentProgramsCallsAreSampledOnTheTinkerEngineAndTrainedThere() throws Exception {
        String suffix = ".e2etkap" + UUID.randomUUID().toString().substring(0, 8);
        try (var s = loop(suffix, List.of("-Drunner.agent-program.command=" + AgentProgramLoopIT.PROGRAM))) {
            LoopIT.publish(HfLoopIT.suite(suffix), suffix, 4);
            var v1 = LoopIT.awaitCheckpoint(suffix, 1, Duration.ofMinutes(8));
            assertEquals(1, v1.step());
            Trajectory t = HfLoopIT.sampledEpisode(suffix, Duration.ofMinutes(2));
            assertEquals(2, t.turns().size(), "the program's two calls are the episode's turns");
            assertFalse(t.turns().get(1).newContext(), "it sent its history back as it got it: one context");
            assertTrue(t.turns().stream().allMatch(turn -> turn.policyVersion() == 0 && !turn.completionTokenIds().isEmpty()
                    && turn.completionTokenIds().size() == turn.logprobs().size()), "the engine's tokens and log-probabilities, at v0");
            var trainer = EventCodec.mapper().readTree(s.get("trainer", "/status"));
            assertTrue(trainer.get("samples.trained").asLong() >= 2, trainer.toString());
        }
    }

    /** The whole loop (HfLoopIT's) on the engine's tiny Qwen3, the engine as learner and sampler; {@code runner} adds the runner's settings. */
    private static Supervisor loop(String suffix, List<String> runner) throws Exception {
        URI engine = RealTinker.qwen3Tiny();
        var learner = List.of("-Dtrainer.learner=tinker", "-Dtrainer.optim.clip-norm=0", "-Dtrainer.tinker.url=" + engine,
                "-Dtrainer.tinker.base-model=" + RealTinker.baseModel(), "-Dtrainer.lora.rank=4");
        return HfLoopIT.loop(suffix, "e2etk", PythonReference.qwen3Tiny(), learner, services -> {
            var args = new ArrayList<>(List.of("-Drunner.policy=tinker", "-Drunner.tinker.url=" + engine,
                    "-Drunner.tinker.base-model=" + RealTinker.baseModel(), "-Drunner.max-context-tokens=3072"));
            args.addAll(runner);
            return args;
        });
    }
}
