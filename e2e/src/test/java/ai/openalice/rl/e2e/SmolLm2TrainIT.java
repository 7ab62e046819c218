package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.AliceRl;
import ai.openalice.rl.cli.suite.TinySwe;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.ReferenceLm;
import ai.openalice.rl.model.onnx.CacheLayout;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import ai.openalice.rl.policy.OrtDecoder;
import ai.openalice.rl.testkit.PythonReference;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code alice-rl train --model} on SmolLM2-135M-Instruct with a new LoRA adapter, as a user runs
 * it: one supervised warm-start step on oracle trajectories laid out by SmolLM2's template (v1),
 * then one GRPO++ step (v2). The RL episodes come from the oracle with the fix left out half of the
 * time ({@code --oracle-rl 0.5}) so a group's rewards differ and the step is taken — SmolLM2 itself
 * seldom solves a task, and a group that scores alike gives no step (that the runner samples
 * SmolLM2 through inference is {@code SmolLm2LoopIT}'s). The adapter v2 publishes loads in PEFT, and
 * PEFT over transformers gives the log-probs of v2's merged graph; the adapter moved them.
 */
class SmolLm2TrainIT {
    @Test
    void trainWithModelAndLoraPublishesAnAdapterPeftReadsAsTheMergedGraph() throws Exception {
        Path model = PythonReference.smolLm2();
        Path root = Path.of(System.getProperty("alice.services")).getParent();
        System.setProperty("alice.root", root.toString());
        Path state = Path.of("target", "smollm2-train-" + System.nanoTime()).toAbsolutePath();
        Path tasks = TinySwe.generate(state.resolveSibling(state.getFileName() + "-data"), 4, 0, 9).train();
        var out = new StringWriter();
        int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(out)).execute("train", "--state", state.toString(), "--tasks", tasks.toString(), "--heldout", "0",
                "--model", model.toString(), "--lora-rank", "8", "--max-context-tokens", "2048", "--group-size", "2", "--batch-groups", "1",
                "--warm-start-steps", "1", "--warm-start-batch", "2", "--oracle-rl", "0.5", "--steps", "1");
        assertEquals(0, exit, out.toString());
        Path v2 = state.resolve("checkpoints/v2");
        for (String f : List.of("adapter_config.json", "adapter_model.safetensors", "model.onnx", "tokenizer.json", "chat_template.jinja")) {
            assertTrue(Files.isRegularFile(v2.resolve(f)), "v2 holds " + f + "\n" + out);
        }

        int[] tokens;
        try (var tok = HuggingFaceTokenizer.forModel(model)) {
            tokens = tok.encode("<|im_start|>user\nThe test test_add fails: add(2, 3) returns -1. Fix calc.py.<|im_end|>\n<|im_start|>assistant\n"
                    + "I will read calc.py first, then change the subtraction to an addition.");
        }
        String ids = IntStream.of(tokens).mapToObj(Integer::toString).collect(Collectors.joining(","));
        double[] peft = PythonReference.doubles(PythonReference.reference("logprobs", "--model", model.toString(), "--adapter", v2.toString(),
                "--tokens", ids).get("logprobs"));
        double[] base = PythonReference.doubles(PythonReference.reference("logprobs", "--model", model.toString(), "--tokens", ids).get("logprobs"));
        double worst = 0;
        double moved = 0;
        try (var decoder = new OrtDecoder(v2.resolve("model.onnx"), CacheLayout.of(HfConfig.read(model)), 1, false, 0)) {
            float[][] logits = decoder.logitsOfEveryPosition(tokens);
            for (int i = 0; i < tokens.length - 1; i++) {
                worst = Math.max(worst, Math.abs(peft[i] - ReferenceLm.logSoftmax(logits[i])[tokens[i + 1]]));
                moved = Math.max(moved, Math.abs(peft[i] - base[i]));
            }
        }
        System.out.printf("[SmolLM2 train] v2 after a warm-start and an RL step: adapter moves log-probs by up to %.3f; PEFT vs merged graph"
                + " over %d log-probs: %.2e%n", moved, tokens.length - 1, worst);
        assertTrue(moved > 1e-3, "the trained adapter is not zero: it moves the log-probs by " + moved);
        assertTrue(worst <= 1e-3, "PEFT over transformers gives the merged graph's log-probs: largest difference " + worst);
        assertTrue(out.toString().contains("[train] warm start: 1 supervised steps"), out.toString());
    }
}
