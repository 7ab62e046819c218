package ai.openalice.rl.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The whole loop, asynchronous against synchronous: {@code ./alice-rl train} for the same number of
 * minutes of RL from the same start (same suite and seed), once with the default scheduling (two
 * batches in flight while the trainer works) and once with {@code --sync} (one batch per policy
 * version, then wait for the checkpoint). {@code loop M CHECKPOINT}: the model generates, starting
 * from CHECKPOINT (a warm-started {@code checkpoints/vN} of another run, or the bundled warm start),
 * in {@code alice-rl train}'s default configuration. {@code loop M}: the scripted oracle generates, leaving out the fix half of the
 * time ({@code --oracle-rl 0.5}) — a fast generator, where the trainer is the bottleneck. From each
 * run's {@code metrics.jsonl} (RL phase only): rollouts scored per hour, and the trainer's
 * utilisation — the compute time of the steps taken ÷ the wall time.
 */
final class LoopBench {
    private LoopBench() {}

    record Figures(double rolloutsPerHour, double utilisation, int steps, double minutes) {}

    static void run(String[] args) throws Exception {
        int minutes = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        Path checkpoint = args.length > 2 ? Path.of(args[2]).toAbsolutePath() : null;
        Path root = TrainRuns.root();
        Path base = TrainRuns.base("alice-loop-bench");
        System.out.printf("loop: %d minutes of RL per mode, %s, state under %s%n", minutes,
                checkpoint == null ? "the oracle generating (--oracle-rl 0.5)" : "the model generating from " + checkpoint, base);
        Figures async = measure(root, base.resolve("async"), minutes, false, checkpoint);
        Figures sync = measure(root, base.resolve("sync"), minutes, true, checkpoint);
        print("asynchronous (default)", async);
        print("baseline: synchronous (--sync)", sync);
        System.out.printf("  ratio async / sync rollouts per hour : %.2fx (anchors report 1.5-2.8x)%n", async.rolloutsPerHour() / sync.rolloutsPerHour());
        System.out.printf("  ratio async / sync trainer utilisation: %.2fx%n", async.utilisation() / sync.utilisation());
        System.out.printf("  ratio async / sync trainer steps/hour  : %.2fx%n", async.steps() / async.minutes() / (sync.steps() / sync.minutes()));
    }

    private static void print(String name, Figures f) {
        System.out.printf("  %-32s: %7.0f rollouts/hour, trainer utilisation %5.1f%%, %d steps in %.1f min%n", name, f.rolloutsPerHour(),
                100 * f.utilisation(), f.steps(), f.minutes());
    }

    static Figures measure(Path root, Path state, int minutes, boolean sync, Path checkpoint) throws Exception {
        var cmd = new ArrayList<>(List.of(root.resolve("alice-rl").toString(), "train", "--state", state.toString(), "--minutes",
                Integer.toString(minutes), "--warm-start-steps", "0", "--tasks", "16", "--heldout", "4", "--probe-every", "0"));
        if (checkpoint == null) {
            // the configuration the oracle's figures in bench/README.md were measured with (alice-rl train's defaults then)
            cmd.addAll(List.of("--group-size", "4", "--batch-groups", "2", "--compact-filter", "--no-submit-required", "--loss-aggregation",
                    "seq-mean-token-sum-norm", "--oracle-rl", "0.5"));
        } else {
            // the model generating in alice-rl train's default configuration: what a user's run does
            cmd.addAll(List.of("--init-checkpoint", checkpoint.toString()));
        }
        if (sync) {
            cmd.add("--sync");
        }
        Files.createDirectories(state);
        Path log = state.resolveSibling(state.getFileName() + ".log");
        System.out.printf("  running %s (log %s)%n", String.join(" ", cmd), log);
        var p = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("alice-rl train exited with " + p.exitValue() + "; see " + log);
        }
        return figures(Files.readAllLines(state.resolve("metrics.jsonl")));
    }

    /** From the progress lines of the RL phase: scored rollouts over the wall time, and the sum of each step's compute time. */
    static Figures figures(List<String> lines) throws Exception {
        var mapper = new ObjectMapper();
        JsonNode first = null;
        JsonNode last = null;
        Map<Long, Double> computeMs = new TreeMap<>();
        for (String line : lines) {
            JsonNode n = mapper.readTree(line);
            if (!"rl".equals(n.path("phase").asText())) {
                continue;
            }
            if (first == null) {
                first = n;
            }
            last = n;
            if (n.has("last.step") && n.path("last.step").asLong() > first.path("step").asLong()) {
                computeMs.put(n.path("last.step").asLong(), n.path("last.computeMs").asDouble());
            }
        }
        if (first == null || last == first) {
            throw new IllegalStateException("no RL progress recorded");
        }
        double wallMs = last.path("t").asDouble() - first.path("t").asDouble();
        double rollouts = last.path("rolloutsScored").asDouble() - first.path("rolloutsScored").asDouble();
        double compute = computeMs.values().stream().mapToDouble(Double::doubleValue).sum();
        return new Figures(rollouts / wallMs * 3_600_000, compute / wallMs, computeMs.size(), wallMs / 60_000);
    }
}
