package ai.openalice.rl.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/**
 * Storage and memory over a long run: {@code ./alice-rl train} for M minutes in its default
 * configuration, with every retention window set to W minutes (and the prune jobs looking every
 * minute), then from the run's {@code resources.jsonl} (one sample a minute): the database's growth
 * per 1,000 rollouts while nothing is old enough to delete (the first W minutes) — the same run's
 * baseline — against its growth after the window, when deletion should hold it flat; and each
 * process's resident memory and heap after warm-up, as a least-squares slope in MiB per hour.
 * Rollouts are counted from the trainer's ledger ({@code trainer.samples}, never pruned: the
 * dispatcher's /stats counts only what its history window keeps). {@code soak-report STATE [W]}
 * analyses a run already made.
 */
final class SoakBench {
    private SoakBench() {}

    record Sample(double minute, long scored, Long dbBytes, Map<String, Long> rss, Map<String, Long> heap) {}

    static void run(String[] args) throws Exception {
        int minutes = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        int window = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        Path root = TrainRuns.root();
        Path base = TrainRuns.base("alice-soak-bench");
        Path state = base.resolve("state");
        var cmd = List.of(root.resolve("alice-rl").toString(), "train", "--state", state.toString(), "--minutes", Integer.toString(minutes));
        String keep = "PT" + window + "M";
        // retention of every service to W minutes, looked for every minute (environment: the services inherit it)
        var env = Map.of("ALICE_OUTBOX_KEEP_SENT", keep, "TRAINER_KEEP_DROPPED_TRAJECTORIES", keep, "RUNNER_KEEP_ARTIFACTS", keep,
                "RUNNER_PRUNE_EVERY", "PT1M", "VERIFIER_KEEP_VERIFICATIONS", keep, "VERIFIER_PRUNE_EVERY", "PT1M", "DISPATCHER_KEEP_HISTORY", keep,
                "DISPATCHER_PRUNE_EVERY", "PT1M");
        Path log = base.resolve("train.log");
        System.out.printf("soak: %d minutes of alice-rl train (defaults), retention %d min; %s (log %s)%n", minutes, window, String.join(" ", cmd), log);
        var pb = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        if (pb.start().waitFor() != 0) {
            throw new IllegalStateException("alice-rl train failed; see " + log);
        }
        analyse(state, window);
    }

    /** {@code soak-report STATE [W]}: the figures of a run already made. */
    static void report(String[] args) throws Exception {
        analyse(Path.of(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 10);
    }

    static void analyse(Path state, int window) throws Exception {
        var received = new ArrayList<Long>();
        try (var c = LoopAudit.of(state).connect(); var st = c.createStatement(); var rs = st.executeQuery("SELECT received_at FROM trainer.samples ORDER BY received_at")) {
            while (rs.next()) {
                received.add(rs.getTimestamp(1).getTime());
            }
        }
        report(samples(Files.readAllLines(state.resolve("resources.jsonl")), received), window);
    }

    /** The samples, each with the rollouts the trainer had received by then ({@code received}: epoch ms). */
    static List<Sample> samples(List<String> lines, List<Long> received) throws Exception {
        var mapper = new ObjectMapper();
        var out = new ArrayList<Sample>();
        double t0 = Double.NaN;
        for (String line : lines) {
            JsonNode n = mapper.readTree(line);
            long t = n.path("t").asLong();
            t0 = Double.isNaN(t0) ? t : t0;
            long count = received.stream().filter(r -> r <= t).count();
            out.add(new Sample((t - t0) / 60_000, count, n.path("dbBytes").isNumber() ? n.get("dbBytes").asLong() : null, longs(n.path("rss")),
                    longs(n.path("heap"))));
        }
        return out;
    }

    private static Map<String, Long> longs(JsonNode o) {
        var m = new TreeMap<String, Long>();
        o.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asLong()));
        return m;
    }

    static void report(List<Sample> s, int window) {
        double end = s.getLast().minute();
        double warm = Math.min(window, end / 2);
        System.out.printf("%d samples over %.1f min; warm-up and baseline: the first %d min%n", s.size(), end, window);
        var before = s.stream().filter(x -> x.minute() <= window && x.dbBytes() != null).toList();
        var after = s.stream().filter(x -> x.minute() >= window + 2 && x.dbBytes() != null).toList();
        if (before.size() >= 2) {
            var a = before.getFirst();
            var b = before.getLast();
            double perThousand = (b.dbBytes() - a.dbBytes()) * 1000.0 / Math.max(1, b.scored() - a.scored());
            System.out.printf("  database growth before the window (baseline): %.1f MiB per 1,000 rollouts (%d rollouts, %.1f -> %.1f MiB)%n",
                    perThousand / (1 << 20), b.scored() - a.scored(), mib(a.dbBytes()), mib(b.dbBytes()));
            double slopeBefore = slope(before, x -> (double) x.dbBytes()) * 60 / (1 << 20);
            System.out.printf("  database slope before the window: %8.1f MiB/hour%n", slopeBefore);
            if (after.size() >= 2) {
                double slopeAfter = slope(after, x -> (double) x.dbBytes()) * 60 / (1 << 20);
                var last = after.getLast();
                double perThousandAfter = (last.dbBytes() - after.getFirst().dbBytes()) * 1000.0
                        / Math.max(1, last.scored() - after.getFirst().scored());
                System.out.printf("  database slope after the window : %8.1f MiB/hour (%.2f MiB per 1,000 rollouts); ratio after / before %.2f%n",
                        slopeAfter, perThousandAfter / (1 << 20), slopeAfter / slopeBefore);
                System.out.printf("  database size: %.1f MiB at %d min, %.1f MiB at the end, at most %.1f MiB after the window; %d rollouts in all%n",
                        mib(b.dbBytes()), window, mib(last.dbBytes()), mib(after.stream().mapToLong(Sample::dbBytes).max().orElseThrow()), last.scored());
            }
        }
        var names = new TreeSet<String>();
        s.forEach(x -> names.addAll(x.rss().keySet()));
        var late = s.stream().filter(x -> x.minute() >= warm).toList();
        System.out.printf("  (after %.0f min; a JVM or allocator that keeps its high-water mark rises in steps: 'new peak' is the last minute RSS rose 2%% above its peak so far)%n",
                warm);
        System.out.printf("  %-16s %10s %10s %12s %12s %14s %9s%n", "process", "RSS start", "RSS end", "RSS peak", "RSS MiB/h", "heap MiB/h", "new peak");
        for (String n : names) {
            var withRss = late.stream().filter(x -> x.rss().containsKey(n)).toList();
            if (withRss.size() < 2) {
                continue;
            }
            var withHeap = late.stream().filter(x -> x.heap().containsKey(n)).toList();
            String heapSlope = withHeap.size() < 2 ? "-" : String.format("%.1f", slope(withHeap, x -> (double) x.heap().get(n)) * 60 / (1 << 20));
            System.out.printf("  %-16s %8.0f M %8.0f M %10.0f M %12.1f %14s %6.0f min%n", n, mib(withRss.getFirst().rss().get(n)),
                    mib(withRss.getLast().rss().get(n)), mib(s.stream().filter(x -> x.rss().containsKey(n)).mapToLong(x -> x.rss().get(n)).max().orElseThrow()),
                    slope(withRss, x -> (double) x.rss().get(n)) * 60 / (1 << 20), heapSlope, lastRise(s, n));
        }
    }

    /** The minute the process's RSS last rose 2% above its peak so far. */
    static double lastRise(List<Sample> s, String process) {
        long peak = 0;
        double at = 0;
        for (Sample x : s) {
            Long r = x.rss().get(process);
            if (r != null && r > peak * 1.02) {
                at = x.minute();
            }
            if (r != null) {
                peak = Math.max(peak, r);
            }
        }
        return at;
    }

    /** Least-squares slope of y against minutes. */
    static double slope(List<Sample> s, ToDoubleFunction<Sample> y) {
        double mx = s.stream().mapToDouble(Sample::minute).average().orElseThrow();
        double my = s.stream().mapToDouble(y).average().orElseThrow();
        double sxy = 0;
        double sxx = 0;
        for (Sample x : s) {
            sxy += (x.minute() - mx) * (y.applyAsDouble(x) - my);
            sxx += (x.minute() - mx) * (x.minute() - mx);
        }
        return sxx == 0 ? 0 : sxy / sxx;
    }

    private static double mib(long bytes) {
        return bytes / (double) (1 << 20);
    }
}
