package ai.openalice.rl.bench;

import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.djl.HfLm;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.model.learner.Learner;
import ai.openalice.rl.model.learner.LrSchedule;
import ai.openalice.rl.model.learner.Sample;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.model.train.AdamW;
import ai.openalice.rl.testkit.PythonReference;
import ai.openalice.rl.testkit.RealTinker;
import ai.openalice.rl.tinker.AdamParams;
import ai.openalice.rl.tinker.Datum;
import ai.openalice.rl.tinker.LossFn;
import ai.openalice.rl.tinker.TinkerClient;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * The Tinker learner's client side against the official {@code tinker} Python SDK (0.25.0, in the
 * Tinker environment) driving the same SkyRL server (JAX on CPU, the tiny Qwen3) with the same
 * batch through the same three requests of a GRPO++ step — forward, ppo forward_backward,
 * optim_step: steps per second and the client process's CPU per step. Then the engine's step time
 * against the built-in DJL learner's on the same model, batch and LoRA rank in this process.
 *
 * <p>{@code bench/run -Dalice.tinker.home=$ALICE_TINKER_HOME -Dalice.model.qwen3-tiny=$ALICE_MODEL_QWEN3_TINY tinker [STEPS]}
 */
final class TinkerBench {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ROWS = 8;
    private static final int LENGTH = 256;
    private static final int PROMPT = 64;
    private static final int RANK = 8;
    private static final int WARMUP = 2;

    private TinkerBench() {}

    static void run(String[] args) throws Exception {
        int steps = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        System.setProperty("ai.djl.pytorch.num_threads", "1");
        System.setProperty("ai.djl.pytorch.num_interop_threads", "1");
        var rnd = new Random(7);
        int[][] tokens = new int[ROWS][LENGTH];
        for (int[] row : tokens) {
            Arrays.setAll(row, i -> rnd.nextInt(256));
        }
        var loss = PolicyLossConfig.grpoPlusPlus(LENGTH);
        Map<String, Double> clip = Map.of("clip_low_threshold", 1 - loss.epsLow(), "clip_high_threshold", 1 + loss.epsHigh());
        List<Datum> ce = new ArrayList<>();
        List<Datum> ppo = new ArrayList<>();
        var rows = new ArrayList<Map<String, Object>>();
        for (int r = 0; r < ROWS; r++) {
            float[] lp = new float[LENGTH - 1];
            float[] adv = new float[LENGTH - 1];
            Arrays.fill(lp, -5.5f);
            for (int i = PROMPT - 1; i < adv.length; i++) {
                adv[i] = (r % 2 == 0 ? 0.5f : -0.5f) / (ROWS * LENGTH);
            }
            ce.add(Datum.ofSequence(tokens[r], null, null, null));
            ppo.add(Datum.ofSequence(tokens[r], lp, adv, null));
            rows.add(Map.of("tokens", tokens[r], "logprobs", lp, "advantages", adv));
        }
        double lr = 1e-4;
        URI engine = RealTinker.qwen3Tiny();
        System.out.printf("tinker: SkyRL %s (JAX on CPU), tiny Qwen3 (%s), LoRA rank %d, batch %d x %d tokens (%,d completion), %d steps after %d"
                + " warm-up%n", engine, RealTinker.baseModel(), RANK, ROWS, LENGTH, ROWS * (LENGTH - PROMPT), steps, WARMUP);

        double[] java1 = javaSteps(engine, ce, ppo, clip, lr, steps);
        double[] python = pythonSteps(engine, rows, clip, lr, steps);
        double[] java2 = javaSteps(engine, ce, ppo, clip, lr, steps);
        double javaWall = Math.min(java1[0], java2[0]);
        double javaCpu = Math.min(java1[1], java2[1]);
        System.out.printf("  Java client (libs/tinker)   : %8.1f ms/step wall  %6.2f steps/s   client CPU %6.1f ms/step (%.1f in the calling thread)%n",
                javaWall, 1000 / javaWall, javaCpu, Math.min(java1[2], java2[2]));
        System.out.printf("  Python SDK (tinker 0.25.0)  : %8.1f ms/step wall  %6.2f steps/s   client CPU %6.1f ms/step%n", python[0], 1000 / python[0],
                python[1]);
        System.out.printf("  ratio Java / Python steps/s : %8.2fx   client CPU Python / Java: %.2fx%n", python[0] / javaWall, python[1] / javaCpu);

        double djl = djlStep(tokens, steps);
        System.out.printf("  DJL learner, same batch     : %8.1f ms/step (1 thread, float32, in process)%n", djl);
        System.out.printf("  ratio engine / DJL step time: %8.2fx%n", javaWall / djl);
    }

    /** Median wall and CPU milliseconds of a step through TinkerClient. */
    private static double[] javaSteps(URI engine, List<Datum> ce, List<Datum> ppo, Map<String, Double> clip, double lr, int steps) {
        var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (var client = new TinkerClient(engine, null, TinkerClient.Listener.NONE)) {
            client.createSession(List.of("alice-rl-bench"));
            String model = client.createLoraModel(RealTinker.baseModel(), RANK, 3L);
            var adam = new AdamParams(lr, 0.9, 0.999, 1e-8, 0);
            var threads = ManagementFactory.getThreadMXBean();
            double[] wall = new double[steps];
            double[] cpu = new double[steps];
            double[] own = new double[steps];
            for (int s = 0; s < WARMUP + steps; s++) {
                long t0 = System.nanoTime();
                long c0 = os.getProcessCpuTime();
                long o0 = threads.getCurrentThreadCpuTime();
                client.forward(model, 4 * s + 1, ce, LossFn.CROSS_ENTROPY, Map.of());
                client.forwardBackward(model, 4 * s + 2, ppo, LossFn.PPO, clip);
                client.optimStep(model, 4 * s + 3, adam);
                if (s >= WARMUP) {
                    wall[s - WARMUP] = (System.nanoTime() - t0) / 1e6;
                    cpu[s - WARMUP] = (os.getProcessCpuTime() - c0) / 1e6;
                    own[s - WARMUP] = (threads.getCurrentThreadCpuTime() - o0) / 1e6;
                }
            }
            client.unloadModel(model);
            return new double[] {median(wall), median(cpu), median(own)};
        }
    }

    /** The same steps through the official SDK in a Python process of the Tinker environment. */
    private static double[] pythonSteps(URI engine, List<Map<String, Object>> rows, Map<String, Double> clip, double lr, int steps)
            throws Exception {
        Path batch = Files.createTempFile("tinker-bench", ".json");
        try {
            var spec = new LinkedHashMap<String, Object>();
            spec.put("rows", rows);
            spec.put("clip", clip);
            spec.put("lr", lr);
            spec.put("rank", RANK);
            JSON.writeValue(batch.toFile(), spec);
            Path python = PythonReference.tinkerHome().resolve("venv/bin/python");
            Path script = Path.of("bench", "python", "tinker_sdk_steps.py").toAbsolutePath();
            var p = new ProcessBuilder(python.toString(), script.toString(), engine.toString(), RealTinker.baseModel(), batch.toString(),
                    Integer.toString(WARMUP), Integer.toString(steps)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (p.waitFor() != 0) {
                throw new IllegalStateException("the SDK's steps failed: " + out);
            }
            JsonNode r = JSON.readTree(out.substring(out.lastIndexOf('\n') + 1));
            return new double[] {1000 * median(doubles(r.get("wall"))), 1000 * median(doubles(r.get("cpu")))};
        } finally {
            Files.deleteIfExists(batch);
        }
    }

    /** Milliseconds of the built-in learner's GRPO++ step on the same model (a rank-RANK adapter on every linear module) and tokens. */
    private static double djlStep(int[][] tokens, int steps) throws Exception {
        HfModel m = HfModel.load(PythonReference.qwen3Tiny());
        var lora = LoraAdapter.initialise(new LoraConfig(RANK, 32, List.of("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                "down_proj"), null, false, null), m.config(), 3);
        var samples = new ArrayList<Sample>();
        for (int r = 0; r < tokens.length; r++) {
            var prompt = new ArrayList<Integer>();
            var completion = new ArrayList<Integer>();
            for (int i = 0; i < tokens[r].length; i++) {
                (i < PROMPT ? prompt : completion).add(tokens[r][i]);
            }
            var turn = new Turn(0, prompt, completion, Collections.nCopies(completion.size(), -5.5), 0, new Action("bash", null, null), "", 0, 0);
            samples.add(new Sample(UUID.randomUUID(), List.of(turn), r % 2 == 0 ? 0.5 : -0.5));
        }
        var batch = SequenceBatch.of(samples, LENGTH, Aggregation.SEQ_MEAN_TOKEN_SUM_NORM, LENGTH).batch();
        var settings = new Learner.Settings(PolicyLossConfig.grpoPlusPlus(LENGTH), LrSchedule.constant(1e-4, 0), 1, 1, ROWS, 1f);
        try (var learner = new Learner<>(HfLm.withAdapter(m.config(), m.floats(), lora), AdamW.defaults(), settings)) {
            double[] ms = new double[steps];
            for (int s = 0; s < WARMUP + steps; s++) {
                long t0 = System.nanoTime();
                learner.rl(batch);
                if (s >= WARMUP) {
                    ms[s - WARMUP] = (System.nanoTime() - t0) / 1e6;
                }
            }
            return median(ms);
        }
    }

    private static double[] doubles(JsonNode a) {
        double[] d = new double[a.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = a.get(i).asDouble();
        }
        return d;
    }

    private static double median(double[] x) {
        double[] s = x.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
