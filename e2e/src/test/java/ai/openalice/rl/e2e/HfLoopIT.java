package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.suite.TinySwe;
import ai.openalice.rl.cli.train.Supervisor;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.events.RolloutCompleted;
import ai.openalice.rl.events.Topic;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import ai.openalice.rl.testkit.PythonReference;
import ai.openalice.rl.testkit.TestStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A HuggingFace-family model through the whole loop, as LoopIT runs the built-in one: a tiny random
 * Qwen3 in the real folder layout (byte-level tokenizer.json, Qwen3's chat template, its end tokens)
 * → v0 served by inference → episodes laid out by the template and sampled from it by the runner
 * over HTTP → one GRPO++ step on a new LoRA adapter → v1 published with PEFT's adapter files →
 * inference serving v1.
 */
class HfLoopIT {
    final String suffix = ".e2ehf" + UUID.randomUUID().toString().substring(0, 8);

    static Path tinyQwen3(Path dir) throws Exception {
        return tinyQwen3(dir, 4096);
    }

    /** A tiny random Qwen3 over a byte-level tokenizer (a token a byte), with Qwen3's chat template, for contexts up to {@code maxPositions}. */
    static Path tinyQwen3(Path dir, int maxPositions) throws Exception {
        tinyQwen3(dir, maxPositions, 259, 258, 256);
        TinyModels.JSON.writeValue(dir.resolve("tokenizer.json").toFile(),
                TinyModels.byteLevelTokenizer(List.of("<|endoftext|>", "<|im_start|>", "<|im_end|>")));
        return dir;
    }

    /**
     * A tiny random Qwen3 over SmolLM2's BPE tokenizer (49,152 tokens, about four bytes a token in
     * English; ChatML's {@code <|im_end|>} is 2 and {@code <|endoftext|>} 0), for a program whose first
     * prompt is too long for a token a byte.
     */
    static Path tinyQwen3OverSmolLm2Tokens(Path dir, int maxPositions) throws Exception {
        tinyQwen3(dir, maxPositions, 49152, 2, 0);
        Files.copy(PythonReference.smolLm2().resolve("tokenizer.json"), dir.resolve("tokenizer.json"), StandardCopyOption.REPLACE_EXISTING);
        return dir;
    }

    /** The model's files but its tokenizer (a placeholder the caller replaces). */
    private static void tinyQwen3(Path dir, int maxPositions, int vocab, int imEnd, int endOfText) throws Exception {
        var json = TinyModels.config("qwen3").put("vocab_size", vocab).put("max_position_embeddings", maxPositions).put("eos_token_id", imEnd);
        TinyModels.write(dir, json, TinyModels.randomWeights(HfConfig.of(json, "qwen3"), 3), DType.F32, 1);
        Files.writeString(dir.resolve("generation_config.json"), "{\"eos_token_id\": [" + imEnd + ", " + endOfText + "]}");
        String template = Files.readString(Path.of("..", "libs", "model-core", "src", "test", "resources", "chat-templates", "qwen3.jinja"));
        TinyModels.JSON.writeValue(dir.resolve("tokenizer_config.json").toFile(),
                TinyModels.JSON.createObjectNode().put("chat_template", template).put("eos_token", "<|im_end|>"));
    }

    @Test
    void aTinyQwen3IsSampledTrainedThroughLoraAndServedAgain() throws Exception {
        Path model = tinyQwen3(Path.of("target", "e2e-model" + suffix).toAbsolutePath());
        try (var s = loop(suffix, "e2ehf", model, LORA, services -> List.of("-Drunner.policy=http", "-Drunner.tool-call-format=json",
                "-Drunner.system-prompt=full", "-Drunner.max-context-tokens=3072", "-Drunner.inference-url=" + services.uri("inference", "")))) {
            LoopIT.publish(suite(suffix), suffix, 2);
            var v1 = LoopIT.awaitCheckpoint(suffix, 1, Duration.ofMinutes(8));
            assertEquals(1, v1.step());
            Path dir = Path.of(URI.create(v1.onnx().uri())).getParent();
            for (String f : List.of("adapter_config.json", "adapter_model.safetensors", "model.onnx", "tokenizer.json", "tokenizer_config.json")) {
                assertTrue(Files.isRegularFile(dir.resolve(f)), "v1 holds " + f + " (PEFT's adapter, the merged graph, the model's files)");
            }
            assertFalse(Files.exists(dir.resolve("model.safetensors")), "the base stays in its folder");
            LoopIT.awaitServed(s, 1);

            Trajectory t = sampledEpisode(suffix, Duration.ofMinutes(2));
            try (var tok = HuggingFaceTokenizer.forModel(model)) {
                Turn first = t.turns().getFirst();
                String opening = tok.decode(first.promptDeltaTokenIds().stream().mapToInt(Integer::intValue).toArray());
                assertTrue(opening.startsWith("<|im_start|>system\nYou are a software engineer"), opening);
                assertTrue(opening.contains("<tools>\n{\"type\": \"function\", \"function\": {\"name\": \"bash\""), opening);
                assertTrue(opening.endsWith("<|im_end|>\n<|im_start|>assistant\n"), opening);
                assertFalse(first.completionTokenIds().isEmpty(), "the model sampled through inference");
                assertTrue(first.completionTokenIds().stream().allMatch(id -> id >= 0 && id < 259));
            }
            var trainer = EventCodec.mapper().readTree(s.get("trainer", "/status"));
            assertTrue(trainer.get("samples.trained").asLong() >= 2, trainer.toString());
        }
    }

    /** A new LoRA adapter of rank 2 on q_proj and v_proj, trained in process a sequence at a time. */
    static final List<String> LORA = List.of("-Dtrainer.lora.rank=2", "-Dtrainer.lora.targets=q_proj,v_proj", "-Dtrainer.optim.micro-batch=1");

    /** The tiny-swe suite the loop tests publish (2 tasks and 1 held out, seed 11), for {@code suffix}'s run. */
    static Path suite(String suffix) throws Exception {
        Path suite = Path.of("target", "e2e-suite" + suffix).toAbsolutePath();
        TinySwe.generate(suite, 2, 1, 11);
        return suite;
    }

    /**
     * The whole loop on {@code model} (a HuggingFace-family folder), ready: inference, the trainer
     * learning from it with {@code learner}'s settings, rubric-prm, the verifier, the runner with the
     * settings {@code runner} gives once the services before it run (inference's address among them),
     * the dispatcher in groups of 2 at 64 tokens a turn; {@code name} tags the sandboxes and the runner.
     */
    static Supervisor loop(String suffix, String name, Path model, List<String> learner, Function<Supervisor, List<String>> runner)
            throws Exception {
        LoopIT.resetSchemas();
        Path artifacts = Path.of("target", "e2e-artifacts" + suffix).toAbsolutePath();
        var s = LoopIT.services(suffix);
        try {
            s.start("inference", List.of("-Dmp.messaging.incoming.checkpoints-published.auto.offset.reset=earliest"));
            var trainer = new ArrayList<>(List.of("-Dtrainer.artifact-dir=" + artifacts.resolve("checkpoints"), "-Dtrainer.batch-groups=1",
                    "-Dtrainer.init-model=" + model, "-Dtrainer.poll=PT0.5S", "-Dtrainer.loss.compact-filter=false",
                    // a random model never solves a task and its rewards may all be equal: keep the group (zero advantage) for the plumbing
                    "-Dtrainer.dynamic-sampling=none"));
            trainer.addAll(learner);
            s.start("trainer", trainer);
            s.start("rubric-prm", List.of());
            s.start("verifier", List.of("-Dverifier.sandbox-root=/tmp/alice-rl-" + name + "-verifier"));
            var args = new ArrayList<>(List.of("-Drunner.model-dir=" + model, "-Drunner.id=" + name + "-runner",
                    "-Drunner.sandbox-root=/tmp/alice-rl-" + name + "-runner", "-Drunner.artifact-dir=" + artifacts.resolve("trajectories")));
            args.addAll(runner.apply(s));
            s.start("sandbox-runner", args);
            s.start("task-dispatcher", List.of("-Ddispatcher.group-size=2", "-Ddispatcher.max-in-flight=4", "-Ddispatcher.pace.groups-per-version=0",
                    "-Ddispatcher.compact-filter=false", "-Ddispatcher.sampling.max-tokens-per-turn=64"));
            s.awaitReady(Duration.ofMinutes(3));
            return s;
        } catch (Exception | Error e) {
            s.close();
            throw e;
        }
    }

    /** An episode the runner played with the model (one with at least one turn), from rollouts.completed. */
    static Trajectory sampledEpisode(String suffix, Duration wait) throws Exception {
        return TopicScan.<RolloutCompleted>first(Topic.ROLLOUTS_COMPLETED, suffix, wait, done -> !trajectory(done).turns().isEmpty())
                .map(HfLoopIT::trajectory)
                .orElseThrow(() -> new AssertionError("no rollouts.completed with a turn within " + wait + "; see the logs in " + LoopIT.LOGS));
    }

    static Trajectory trajectory(RolloutCompleted done) {
        return switch (done.trajectory()) {
            case TrajectoryRef.Inline i -> i.trajectory();
            case TrajectoryRef.Stored st -> {
                try {
                    yield EventCodec.read(EventCodec.mapper().readTree(Files.readAllBytes(Path.of(URI.create(st.artifact().uri())))), Trajectory.class);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
    }
}
