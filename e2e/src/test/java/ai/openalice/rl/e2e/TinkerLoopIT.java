package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.suite.TinySwe;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.testkit.PythonReference;
import ai.openalice.rl.testkit.RealTinker;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The whole loop with the learner on the real Tinker engine (SkyRL's server, JAX on CPU): the tiny
 * Qwen3 the engine was started with is sampled by the runner through the inference service, one
 * GRPO++ step runs on the engine (forward, ppo forward_backward, optim_step), and v1 — the engine's
 * sampler weights fetched as a PEFT adapter, merged into the ONNX graph, with the engine's saved
 * state named in tinker.json — is served by inference. The runner's policy is the inference
 * service here, not the engine's sampler ({@code runner.policy=tinker} is not built).
 */
class TinkerLoopIT {
    final String suffix = ".e2etk" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void aQwen3IsTrainedOnTheTinkerEngineAndItsAdapterServedByInference() throws Exception {
        URI engine = RealTinker.qwen3Tiny();
        Path model = PythonReference.qwen3Tiny();
        LoopIT.resetSchemas();
        Path suite = Path.of("target", "e2e-suite" + suffix).toAbsolutePath();
        TinySwe.generate(suite, 2, 1, 11);
        Path artifacts = Path.of("target", "e2e-artifacts" + suffix).toAbsolutePath();
        try (var s = LoopIT.services(suffix)) {
            s.start("inference", List.of("-Dmp.messaging.incoming.checkpoints-published.auto.offset.reset=earliest"));
            s.start("trainer", List.of("-Dtrainer.artifact-dir=" + artifacts.resolve("checkpoints"), "-Dtrainer.batch-groups=1",
                    "-Dtrainer.learner=tinker", "-Dtrainer.tinker.url=" + engine, "-Dtrainer.tinker.base-model=" + RealTinker.baseModel(),
                    "-Dtrainer.init-model=" + model, "-Dtrainer.lora.rank=4", "-Dtrainer.poll=PT0.5S", "-Dtrainer.loss.compact-filter=false",
                    // a random model never solves a task and its rewards may all be equal: keep the group (zero advantage) for the plumbing
                    "-Dtrainer.dynamic-sampling=none"));
            s.start("rubric-prm", List.of());
            s.start("verifier", List.of("-Dverifier.sandbox-root=/tmp/alice-rl-e2etk-verifier"));
            s.start("sandbox-runner", List.of("-Drunner.policy=http", "-Drunner.model-dir=" + model, "-Drunner.tool-call-format=json",
                    "-Drunner.system-prompt=full", "-Drunner.id=e2etk-runner", "-Drunner.sandbox-root=/tmp/alice-rl-e2etk-runner",
                    "-Drunner.artifact-dir=" + artifacts.resolve("trajectories"), "-Drunner.max-context-tokens=3072",
                    "-Drunner.inference-url=" + s.uri("inference", "")));
            s.start("task-dispatcher", List.of("-Ddispatcher.group-size=2", "-Ddispatcher.max-in-flight=4", "-Ddispatcher.pace.groups-per-version=0",
                    "-Ddispatcher.compact-filter=false", "-Ddispatcher.sampling.max-tokens-per-turn=64"));
            s.awaitReady(Duration.ofMinutes(3));

            LoopIT.publish(suite, suffix, 2);
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
            LoopIT.awaitServed(s, 1);

            var trainer = EventCodec.mapper().readTree(s.get("trainer", "/status"));
            assertTrue(trainer.get("samples.trained").asLong() >= 2, trainer.toString());
            assertTrue(HfLoopIT.sampledEpisode(suffix, Duration.ofMinutes(2)).turns().getFirst().completionTokenIds().stream()
                    .allMatch(id -> id >= 0 && id < 272), "tokens of the model's vocabulary");
        }
    }
}
