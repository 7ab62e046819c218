package ai.openalice.rl.bench;

import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.Sampler;
import ai.openalice.rl.model.djl.HfLm;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.model.hf.TinyModels;
import ai.openalice.rl.model.learner.Learner;
import ai.openalice.rl.model.learner.LrSchedule;
import ai.openalice.rl.model.learner.Sample;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.model.onnx.CacheLayout;
import ai.openalice.rl.model.onnx.HfOnnxExport;
import ai.openalice.rl.model.train.AdamW;
import ai.openalice.rl.policy.KvSequence;
import ai.openalice.rl.policy.OrtDecoder;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * A HuggingFace-family model of Qwen2.5-0.5B's widths (hidden 896, 14 heads, 2 KV heads, MLP
 * 4,864, vocabulary 151,936, tied embeddings) with {@code layers} of its 24 layers (default 2: a
 * training step of all 24 takes minutes on two cores), random weights, one thread everywhere:
 * the trainer's step against a bare DJL forward+backward+AdamW loop on the same model and batch,
 * a LoRA step (r 16 on the attention and MLP projections) against the full step, and ONNX decode —
 * one stream against a bare ORT loop, 16 streams against one.
 * <pre>bench/run hf-model [layers] [steps]</pre>
 */
final class HfModelBench {
    private HfModelBench() {}

    static HfConfig config(int layers) {
        return HfConfig.of(configJson(layers), "qwen2.5-0.5b-shaped");
    }

    static ObjectNode configJson(int layers) {
        return TinyModels.config("qwen2").put("vocab_size", 151_936).put("hidden_size", 896).put("intermediate_size", 4864)
                .put("num_hidden_layers", layers).put("num_attention_heads", 14).put("num_key_value_heads", 2).put("max_position_embeddings", 32768)
                .put("rope_theta", 1_000_000.0).put("tie_word_embeddings", true);
    }

    static void run(String[] args) throws Exception {
        System.setProperty("ai.djl.pytorch.num_threads", "1");
        System.setProperty("ai.djl.pytorch.num_interop_threads", "1");
        int layers = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int steps = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        HfConfig c = config(layers);
        Map<String, float[]> weights = TinyModels.randomWeights(c, 1);
        long params = weights.values().stream().mapToLong(w -> w.length).sum();
        System.out.printf("%nhf-model: Qwen2.5-0.5B's widths, %d of its 24 layers: %,d parameters; 1 thread%n", layers, params);
        train(c, weights, steps);
        decode(c, weights);
    }

    /** Two sequences of a 64-token prompt and a 64-token completion, advantages ±1. */
    static SequenceBatch batch(HfConfig c) {
        var rnd = new Random(3);
        var samples = new ArrayList<Sample>();
        for (int i = 0; i < 2; i++) {
            List<Integer> prompt = rnd.ints(64, 0, c.vocabSize()).boxed().toList();
            List<Integer> completion = rnd.ints(64, 0, c.vocabSize()).boxed().toList();
            samples.add(new Sample(UUID.randomUUID(), List.of(new Turn(0, prompt, completion, Collections.nCopies(64, -5.0), 0,
                    new Action("bash", null, null), "", 0, 0)), i % 2 == 0 ? 1.0 : -1.0));
        }
        return SequenceBatch.of(samples, 128, Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, 128).batch();
    }

    private static void train(HfConfig c, Map<String, float[]> weights, int steps) throws Exception {
        var b = batch(c);
        var settings = new Learner.Settings(PolicyLossConfig.grpoPlusPlus(128), LrSchedule.constant(1e-5, 0), 1, 1, 2, 1f);
        double tokens = (double) b.rows() * b.width();
        double learnerMs = Double.MAX_VALUE;
        double bareMs = Double.MAX_VALUE;
        try (var learner = new Learner<>(HfLm.full(c, weights), AdamW.defaults(), settings); HfLm bare = HfLm.full(c, weights)) {
            var opt = AdamW.defaults();
            learner.rl(b); // warm-up: allocations, the optimizer's moments
            TrainerBench.bare(bare, opt, b, 2);
            for (int round = 0; round < 2; round++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < steps; i++) {
                    TrainerBench.bare(bare, opt, b, 2);
                }
                bareMs = Math.min(bareMs, (System.nanoTime() - t0) / 1e6 / steps);
                t0 = System.nanoTime();
                for (int i = 0; i < steps; i++) {
                    learner.rl(b);
                }
                learnerMs = Math.min(learnerMs, (System.nanoTime() - t0) / 1e6 / steps);
            }
        }
        System.out.printf("  trainer step, full (GRPO++, AdamW)       : %9.0f ms/step %8.0f tokens/s%n", learnerMs, tokens / learnerMs * 1000);
        System.out.printf("  baseline: bare forward+backward+AdamW    : %9.0f ms/step %8.0f tokens/s   ratio %.2fx (target >= 0.9)%n", bareMs,
                tokens / bareMs * 1000, bareMs / learnerMs);
        var lora = LoraAdapter.initialise(new LoraConfig(16, 32, List.of("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
                null, false, null), c, 1);
        double loraMs = Double.MAX_VALUE;
        try (var learner = new Learner<>(HfLm.withAdapter(c, weights, lora), AdamW.defaults(), settings)) {
            learner.rl(b);
            for (int round = 0; round < 2; round++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < steps; i++) {
                    learner.rl(b);
                }
                loraMs = Math.min(loraMs, (System.nanoTime() - t0) / 1e6 / steps);
            }
        }
        System.out.printf("  trainer step, LoRA r=16 (7 projections)  : %9.0f ms/step %8.0f tokens/s   %.2fx the full step's time%n", loraMs,
                tokens / loraMs * 1000, loraMs / learnerMs);
    }

    private static void decode(HfConfig c, Map<String, float[]> weights) throws Exception {
        Path onnx = Files.createTempDirectory("bench-hf").resolve("model.onnx");
        HfOnnxExport.export(c, weights, onnx, "bench", Long.MAX_VALUE);
        int[] prompt = new Random(4).ints(32, 0, c.vocabSize()).toArray();
        int tokens = 64;
        var layout = CacheLayout.of(c);
        double bare = InferenceBench.best(2, () -> InferenceBench.bareLoop(onnx, layout, prompt, tokens));
        try (var dec = new OrtDecoder(onnx, layout, 1, false, 0)) {
            double one = InferenceBench.best(2, () -> single(dec, prompt, tokens));
            System.out.printf("  decode, bare ORT loop (presents fed back) : %8.1f tokens/s%n", bare);
            System.out.printf("  decode, one stream (OrtDecoder)           : %8.1f tokens/s   ratio %.2fx (target >= 0.9)%n", one, one / bare);
            double batched1 = InferenceBench.best(2, () -> InferenceBench.batched(dec, prompt, 1, tokens));
            double batched16 = InferenceBench.best(2, () -> InferenceBench.batched(dec, prompt, 16, tokens));
            System.out.printf("  decode, 16 streams batched                : %8.1f tokens/s   %.2fx one batched stream (%.1f; target >= 3)%n", batched16,
                    batched16 / batched1, batched1);
        }
    }

    /** The in-process policy's path: prefill, then greedy steps in a one-member batch. */
    private static double single(OrtDecoder dec, int[] prompt, int tokens) {
        var seq = new KvSequence[1];
        int next = Sampler.argmax(dec.prefill(prompt, seq));
        long start = System.nanoTime();
        try (var batch = dec.batch(List.of(seq[0]))) {
            for (int t = 0; t < tokens; t++) {
                next = Sampler.argmax(batch.step(new int[] {next})[0]);
            }
        }
        return tokens / ((System.nanoTime() - start) / 1e9);
    }
}
