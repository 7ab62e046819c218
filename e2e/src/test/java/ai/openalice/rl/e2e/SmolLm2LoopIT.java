package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.suite.TinySwe;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.ReferenceLm;
import ai.openalice.rl.model.onnx.CacheLayout;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import ai.openalice.rl.policy.OrtDecoder;
import ai.openalice.rl.testkit.PythonReference;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A real pretrained model through the whole loop, as {@code alice-rl train --model} runs it:
 * SmolLM2-135M-Instruct (its real weights, tokenizer and chat template) → v0 served by inference →
 * episodes laid out by its template and sampled by the runner → one GRPO++ step on a new LoRA
 * adapter → v1 published with PEFT's adapter files and the merged graph → served. PEFT and
 * transformers, given v1's adapter over the same base, give the log-probs of v1's merged graph on
 * the tokens of an episode the model played. (In two turns the model seldom solves a task, so the
 * group's members usually score alike and the step leaves the new adapter's B at zero: that a
 * non-zero adapter alice-rl writes loads in PEFT with equal log-probs is {@code SmolLm2Test}'s.)
 */
class SmolLm2LoopIT {
    final String suffix = ".e2esmol" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void smolLm2IsSampledTrainedThroughLoraAndItsAdapterLoadsInPeft() throws Exception {
        Path model = PythonReference.smolLm2();
        LoopIT.resetSchemas();
        Path suite = Path.of("target", "e2e-suite" + suffix).toAbsolutePath();
        TinySwe.generate(suite, 2, 1, 11);
        Path artifacts = Path.of("target", "e2e-artifacts" + suffix).toAbsolutePath();
        long weightsMiB = HfConfig.read(model).parameters() * 4 >> 20; // as alice-rl train --model sizes the heaps (ModelOptions.heap)
        try (var s = LoopIT.services(suffix)) {
            s.start("inference", List.of("-Xmx" + (768 + 2 * weightsMiB) + "m", "-Dmp.messaging.incoming.checkpoints-published.auto.offset.reset=earliest"));
            s.start("trainer", List.of("-Xmx" + (768 + 4 * weightsMiB) + "m", "-Dtrainer.artifact-dir=" + artifacts.resolve("checkpoints"), "-Dtrainer.batch-groups=1",
                    "-Dtrainer.init-model=" + model, "-Dtrainer.lora.rank=8", "-Dtrainer.lora.targets=q_proj,v_proj",
                    "-Dtrainer.optim.micro-batch=1", "-Dtrainer.poll=PT0.5S", "-Dtrainer.loss.compact-filter=false",
                    // the model rarely solves a task in two turns: keep a group whose rewards are equal (zero advantage) for the plumbing
                    "-Dtrainer.dynamic-sampling=none"));
            s.start("rubric-prm", List.of());
            s.start("verifier", List.of("-Dverifier.sandbox-root=/tmp/alice-rl-e2esmol-verifier"));
            s.start("sandbox-runner", List.of("-Drunner.policy=http", "-Drunner.model-dir=" + model, "-Drunner.tool-call-format=json",
                    "-Drunner.system-prompt=full", "-Drunner.id=e2esmol-runner", "-Drunner.sandbox-root=/tmp/alice-rl-e2esmol-runner",
                    "-Drunner.artifact-dir=" + artifacts.resolve("trajectories"), "-Drunner.max-context-tokens=4096",
                    "-Drunner.inference-url=" + s.uri("inference", "")));
            s.start("task-dispatcher", List.of("-Ddispatcher.group-size=2", "-Ddispatcher.max-in-flight=4", "-Ddispatcher.pace.groups-per-version=0",
                    "-Ddispatcher.compact-filter=false", "-Ddispatcher.sampling.max-tokens-per-turn=48"));
            s.awaitReady(Duration.ofMinutes(3));

            LoopIT.publish(suite, suffix, 2);
            var v1 = LoopIT.awaitCheckpoint(suffix, 1, Duration.ofMinutes(12));
            assertEquals(1, v1.step());
            Path dir = Path.of(URI.create(v1.onnx().uri())).getParent();
            for (String f : List.of("adapter_config.json", "adapter_model.safetensors", "model.onnx", "tokenizer.json", "chat_template.jinja")) {
                assertTrue(Files.isRegularFile(dir.resolve(f)), "v1 holds " + f);
            }
            assertFalse(Files.exists(dir.resolve("model.safetensors")), "the base stays in its folder");
            LoopIT.awaitServed(s, 1);

            Trajectory t = HfLoopIT.sampledEpisode(suffix, Duration.ofMinutes(2));
            Turn first = t.turns().getFirst();
            int[] tokens = IntStream.concat(first.promptDeltaTokenIds().stream().mapToInt(Integer::intValue),
                    first.completionTokenIds().stream().mapToInt(Integer::intValue)).toArray();
            try (var tok = HuggingFaceTokenizer.forModel(model)) {
                String opening = tok.decode(first.promptDeltaTokenIds().stream().mapToInt(Integer::intValue).toArray());
                assertTrue(opening.startsWith("<|im_start|>system\nYou are a software engineer"), opening);
                System.out.println("[SmolLM2 loop] first answer: " + tok.decode(first.completionTokenIds().stream().mapToInt(Integer::intValue).toArray()));
            }
            assertPeftGivesTheMergedGraphsLogProbs(model, dir, tokens);
        }
    }

    private static void assertPeftGivesTheMergedGraphsLogProbs(Path model, Path checkpoint, int[] tokens) throws Exception {
        double[] peft = PythonReference.doubles(PythonReference.reference("logprobs", "--model", model.toString(), "--adapter", checkpoint.toString(),
                "--tokens", IntStream.of(tokens).mapToObj(Integer::toString).collect(Collectors.joining(","))).get("logprobs"));
        HfConfig c = HfConfig.read(model);
        double worst = 0;
        try (var decoder = new OrtDecoder(checkpoint.resolve("model.onnx"), CacheLayout.of(c), 1, false, 0)) {
            float[][] logits = decoder.logitsOfEveryPosition(tokens);
            for (int i = 0; i < tokens.length - 1; i++) {
                worst = Math.max(worst, Math.abs(peft[i] - ReferenceLm.logSoftmax(logits[i])[tokens[i + 1]]));
            }
        }
        System.out.printf("[SmolLM2 loop] v1: PEFT over transformers against the merged graph, %d log-probs, largest difference %.2e%n",
                tokens.length - 1, worst);
        assertTrue(worst <= 1e-3, "largest difference " + worst);
    }
}
