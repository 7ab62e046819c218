package ai.openalice.rl.bench;

import ai.djl.ndarray.types.DataType;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.djl.CausalLm;
import ai.openalice.rl.model.djl.Gpt;
import ai.openalice.rl.model.djl.HfLm;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.model.learner.Learner;
import ai.openalice.rl.model.learner.LrSchedule;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.model.train.AdamW;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The learner's peak resident memory and step time, before and after {@code LeanPass}, each in a
 * process of its own (peak RSS is a process's): "whole graph" is the learner's arithmetic before it
 * — one graph of the whole pass, the log-softmax over the vocabulary times a one-hot of the
 * targets, one backward, AdamW; "lean" is the learner's step now (GRPO++, blocked attention and
 * output head, recomputation per layer). Each runs with glibc's defaults and with the trainer's
 * settings ({@code MALLOC_MMAP_MAX_=0} and friends: the heap keeps what it frees, as in the
 * trainer); a child the kernel kills for memory is reported as such.
 *
 * <pre>bench/run [-Dalice.model.smollm2=DIR] learner-memory [steps]</pre>
 *
 * Cases: the built-in model of {@code alice-rl train} (context 4,096, 4 sequences in micro-batches
 * of 2) and SmolLM2-135M-Instruct with LoRA rank 8 on its 7 projections (2,048 tokens, 2 sequences
 * in micro-batches of 1; its folder from {@code -Dalice.model.smollm2} or
 * {@code ALICE_MODEL_SMOLLM2}, which {@code dev/stack python} makes).
 */
final class LearnerMemoryBench {
    private static final List<String> CASES = List.of("builtin-4096", "smollm2-lora8-1024", "smollm2-lora8-2048");

    private LearnerMemoryBench() {}

    static void run(String[] args) throws Exception {
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        System.out.printf("learner-memory: %d timed step(s) after one warm-up, %d PyTorch threads, each figure from a process of its own%n", steps,
                Runtime.getRuntime().availableProcessors());
        for (String c : System.getProperty("alice.bench.cases", String.join(",", CASES)).split(",")) {
            if (Boolean.getBoolean("alice.bench.lean-only")) {
                row(c, "lean (LeanPass), default glibc", child(c, "lean", steps, false), null);
                row(c, "lean (LeanPass), trainer's glibc", child(c, "lean", steps, true), null);
                continue;
            }
            double[] whole = child(c, "whole", steps, false);
            row(c, "whole graph (before), default glibc", whole, null);
            // with glibc keeping what it frees the whole graph needs more still: not tried where the defaults were killed
            double[] wholeKept = whole == null ? null : child(c, "whole", steps, true);
            if (whole != null) {
                row(c, "whole graph (before), trainer's glibc", wholeKept, null);
            }
            row(c, "lean (LeanPass), default glibc", child(c, "lean", steps, false), whole);
            row(c, "lean (LeanPass), trainer's glibc", child(c, "lean", steps, true), wholeKept);
        }
    }

    private static void row(String c, String what, double[] r, double[] before) {
        if (r == null) {
            System.out.printf("  %-20s %-38s: killed by the kernel (out of memory)%n", c, what);
        } else if (before == null) {
            System.out.printf("  %-20s %-38s: %,8.0f ms/step  peak RSS %,7.0f MB%n", c, what, r[0], r[1]);
        } else {
            System.out.printf("  %-20s %-38s: %,8.0f ms/step  peak RSS %,7.0f MB   memory %.2fx, step time %.2fx of before (same glibc)%n", c,
                    what, r[0], r[1], r[1] / before[1], r[0] / before[0]);
        }
    }

    /**
     * Runs one case in a child JVM, with the trainer's allocator settings or glibc's defaults: {ms
     * per step, peak RSS MB}, or null when the kernel killed it.
     */
    private static double[] child(String name, String mode, int steps, boolean trainerMalloc) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        var cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Dalice.model.smollm2=" + smolLm2OrEmpty(), "-cp",
                System.getProperty("java.class.path"), Bench.class.getName(), "learner-memory-child", name, mode, String.valueOf(steps)));
        var pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (trainerMalloc) {
            pb.environment().putAll(Map.of("MALLOC_ARENA_MAX", "1", "MALLOC_MMAP_MAX_", "0", "MALLOC_TRIM_THRESHOLD_", "17179869184",
                    "MALLOC_TOP_PAD_", "1073741824"));
        }
        Process p = pb.start();
        double[] out = null;
        try (var r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null;) {
                if (line.startsWith("RESULT ")) {
                    String[] f = line.split(" ");
                    out = new double[] {Double.parseDouble(f[1]), Double.parseDouble(f[2])};
                } else if (!line.contains("INFO") && !line.startsWith("WARNING") && !line.startsWith("[W")) {
                    System.out.println("    " + line);
                }
            }
        }
        int exit = p.waitFor();
        if (out == null && exit != 137) {
            throw new IllegalStateException(name + " (" + mode + ") ended with status " + exit + " and no result");
        }
        return out;
    }

    private static String smolLm2OrEmpty() {
        return System.getProperty("alice.model.smollm2", System.getenv().getOrDefault("ALICE_MODEL_SMOLLM2", ""));
    }

    /** In the child: one case, one mode; prints "RESULT ms peakMB". */
    static void child(String[] args) throws Exception {
        String name = args[1];
        String mode = args[2];
        int steps = Integer.parseInt(args[3]);
        System.setProperty("ai.djl.pytorch.num_threads", String.valueOf(Runtime.getRuntime().availableProcessors()));
        System.setProperty("ai.djl.pytorch.num_interop_threads", "1");
        CausalLm lm;
        int context;
        int rows;
        int micro;
        if (name.equals("builtin-4096")) {
            context = 4096;
            rows = 4;
            micro = 2;
            lm = Gpt.initialise(new GptConfig(264, context, 2, 4, 128), 1);
        } else {
            String dir = System.getProperty("alice.model.smollm2", "");
            if (dir.isEmpty() || !Files.isDirectory(Path.of(dir))) {
                throw new IllegalArgumentException("SmolLM2's folder: set -Dalice.model.smollm2 or ALICE_MODEL_SMOLLM2 (dev/stack python makes it)");
            }
            var model = HfModel.load(Path.of(dir));
            context = Integer.parseInt(name.substring(name.lastIndexOf('-') + 1));
            rows = 2;
            micro = 1;
            var lora = LoraAdapter.initialise(new LoraConfig(8, 16, List.of("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"),
                    null, false, null), model.config(), 1);
            lm = HfLm.withAdapter(model.config(), model.floats(), lora);
        }
        SequenceBatch batch = TrainerBench.batch(context, rows, lm.vocabSize());
        System.gc();
        System.out.printf("loaded: RSS %.0f MB, peak so far %.0f MB%n", status("VmRSS:"), status("VmHWM:"));
        var settings = new Learner.Settings(PolicyLossConfig.grpoPlusPlus(context), LrSchedule.constant(1e-4, 0), 1, 1, micro, 1f);
        double best = Double.MAX_VALUE;
        try (var learner = new Learner<>(lm, AdamW.defaults(), settings)) {
            var opt = AdamW.defaults();
            for (int i = 0; i <= steps; i++) {
                long t0 = System.nanoTime();
                if (mode.equals("whole")) {
                    // the learner's arithmetic before LeanPass: the whole pass as one graph, log-softmax × one-hot
                    TrainerBench.bare(lm, opt, batch, micro, (in, tg) -> lm.logits(in).logSoftmax(-1)
                            .mul(tg.oneHot(lm.vocabSize(), DataType.FLOAT32)).sum(new int[] {-1}));
                } else {
                    learner.rl(batch);
                }
                if (i > 0) {
                    best = Math.min(best, (System.nanoTime() - t0) / 1e6);
                }
            }
        }
        System.out.printf("RESULT %.1f %.1f%n", best, status("VmHWM:"));
    }

    /** A figure of /proc/self/status in MB: VmHWM (peak resident set), VmRSS. */
    private static double status(String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith(field)) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
            }
        }
        return Double.NaN;
    }
}
