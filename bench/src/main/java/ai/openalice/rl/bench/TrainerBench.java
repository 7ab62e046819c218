package ai.openalice.rl.bench;

import ai.djl.engine.Engine;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.djl.CausalLm;
import ai.openalice.rl.model.djl.Gpt;
import ai.openalice.rl.model.learner.Learner;
import ai.openalice.rl.model.learner.LrSchedule;
import ai.openalice.rl.model.learner.Sample;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.model.train.AdamW;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Random;
import java.util.UUID;
import java.util.function.BinaryOperator;

/**
 * The trainer's step (batching from trajectories, the GRPO++ loss with TIS, AdamW, micro-batch
 * accumulation) against a bare DJL loop on the same model and batch in the same run: forward,
 * the summed log-likelihood of the completion tokens, backward, AdamW. Completion tokens per
 * second; target ≥ 0.9× the bare loop.
 *
 * <pre>java -jar bench/target/benchmarks.jar trainer [steps per round] [context] [micro-batch]</pre>
 */
final class TrainerBench {
    private TrainerBench() {}

    static void run(String[] args) {
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        System.setProperty("ai.djl.pytorch.num_threads", "1");
        System.setProperty("ai.djl.pytorch.num_interop_threads", "1");
        // second argument: the context length; 4096 is `./alice-rl train`'s model, trained in micro-batches of 2
        int context = args.length > 2 ? Integer.parseInt(args[2]) : 256;
        var config = new GptConfig(264, context, 2, 4, 128);
        int rows = context >= 2048 ? 4 : 16;
        // third argument: the micro-batch (the trainer's memory grows with it: each holds micro x heads x context² attention floats)
        int micro = args.length > 3 ? Integer.parseInt(args[3]) : context >= 2048 ? 2 : 8;
        var batch = batch(context, rows, 256);
        System.out.printf("trainer: GPT %,d parameters (2 layers, width 128, context %d), batch %d x %d in micro-batches of %d, %,d completion tokens per step,"
                + " 1 thread, GLIBC_TUNABLES=%s%n", config.parameterCount(), context, batch.rows(), batch.width(), micro, batch.completionTokens(),
                System.getenv().getOrDefault("GLIBC_TUNABLES", "-"));

        var settings = new Learner.Settings(PolicyLossConfig.grpoPlusPlus(config.contextLength()), LrSchedule.constant(1e-4, 0), 1, 1, micro, 1f);
        // interleaved rounds, best of each: JIT, allocator and CPU-frequency effects hit both alike
        double learnerMs = Double.MAX_VALUE;
        double bareMs = Double.MAX_VALUE;
        try (var learner = new Learner<>(Gpt.initialise(config, 1), AdamW.defaults(), settings); Gpt gpt = Gpt.initialise(config, 1)) {
            var opt = AdamW.defaults();
            learner.rl(batch);
            bare(gpt, opt, batch, micro);
            for (int round = 0; round < 4; round++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < steps; i++) {
                    bare(gpt, opt, batch, micro);
                }
                bareMs = Math.min(bareMs, (System.nanoTime() - t0) / 1e6 / steps);
                t0 = System.nanoTime();
                for (int i = 0; i < steps; i++) {
                    learner.rl(batch);
                }
                learnerMs = Math.min(learnerMs, (System.nanoTime() - t0) / 1e6 / steps);
            }
        }
        double tokens = batch.completionTokens();
        System.out.printf("  trainer step (GRPO++ loss, TIS, AdamW) : %8.1f ms/step  %,10.0f tokens/s%n", learnerMs, tokens / learnerMs * 1000);
        System.out.printf("  baseline: bare forward+backward+AdamW  : %8.1f ms/step  %,10.0f tokens/s%n", bareMs, tokens / bareMs * 1000);
        System.out.printf("  ratio trainer / baseline throughput    : %8.2fx (target >= 0.9)%n", bareMs / learnerMs);
    }

    /** Sequences filling the context, tokens below {@code vocab}: 4 turns each of 24/256 prompt and 40/256 completion tokens. */
    static SequenceBatch batch(int context, int rows, int vocab) {
        int prompt = context * 24 / 256;
        int completionLength = context * 40 / 256;
        var rnd = new Random(7);
        var samples = new ArrayList<Sample>();
        for (int i = 0; i < rows; i++) {
            var turns = new ArrayList<Turn>();
            for (int t = 0; t < 4; t++) {
                var promptTokens = new ArrayList<Integer>();
                var completion = new ArrayList<Integer>();
                for (int k = 0; k < prompt; k++) {
                    promptTokens.add(rnd.nextInt(vocab));
                }
                for (int k = 0; k < completionLength; k++) {
                    completion.add(rnd.nextInt(vocab));
                }
                turns.add(new Turn(t, promptTokens, completion, Collections.nCopies(completionLength, -5.0), 0, new Action("bash", null, null), "", 0, 0));
            }
            samples.add(new Sample(UUID.randomUUID(), turns, i % 2 == 0 ? 0.5 : -0.5));
        }
        return SequenceBatch.of(samples, context, Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, context).batch();
    }

    /** {@link #bare(CausalLm, AdamW, SequenceBatch, int, BinaryOperator)} with the model's own whole-graph log-probabilities. */
    static void bare(CausalLm gpt, AdamW opt, SequenceBatch b, int micro) {
        bare(gpt, opt, b, micro, (in, tg) -> gpt.tokenLogprobs(in, tg, 1f));
    }

    /**
     * The least a learner does: the same micro-batches, the log-likelihood of the masked targets
     * ({@code logprobs} of inputs and targets), backward, AdamW.
     */
    static void bare(CausalLm gpt, AdamW opt, SequenceBatch b, int micro, BinaryOperator<NDArray> logprobs) {
        JniUtils.setGradMode(false);
        for (int r0 = 0; r0 < b.rows(); r0 += micro) {
            try (NDScope scope = new NDScope(); var sub = gpt.manager().newSubManager()) {
                scope.suppressNotUsedWarning();
                var shape = new Shape(micro, b.width());
                int from = r0 * b.width();
                int to = (r0 + micro) * b.width();
                try (var gc = Engine.getInstance().newGradientCollector()) {
                    var logp = logprobs.apply(sub.create(Arrays.copyOfRange(b.inputs(), from, to), shape),
                            sub.create(Arrays.copyOfRange(b.targets(), from, to), shape));
                    gc.backward(logp.mul(sub.create(Arrays.copyOfRange(b.coef(), from, to), shape)).sum().neg());
                }
            }
        }
        opt.update(gpt.parameters(), 1e-4);
    }
}
