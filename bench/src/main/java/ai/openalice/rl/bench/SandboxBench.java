package ai.openalice.rl.bench;

import ai.openalice.rl.agent.tools.ToolContext;
import ai.openalice.rl.agent.tools.Tools;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * Local sandbox lifecycle (create + {@code exec true} + close) against spawning {@code bash -c true}
 * as a plain process, in the same run: latency p50/p99 one at a time, and sustained throughput
 * with 1, 8 and 32 concurrent workers.
 */
final class SandboxBench {
    private SandboxBench() {}

    static void run(String[] args) throws Exception {
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        Path root = Path.of("/tmp", "alice-rl-bench-sandboxes");
        var provider = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(root));
        Path ws = Files.createTempDirectory("bench-ws");
        Files.writeString(ws.resolve("main.py"), "print('hello')\n");
        var spec = SandboxSpec.of(new WorkspaceSource.Dir(ws));
        Duration t = Duration.ofSeconds(30);

        Runnable plain = () -> {
            try {
                Process p = new ProcessBuilder("bash", "-c", "true").start();
                p.getInputStream().readAllBytes();
                if (p.waitFor() != 0) {
                    throw new IllegalStateException("plain spawn failed");
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        Runnable lifecycle = () -> {
            try (Sandbox s = provider.create(spec)) {
                if (!s.exec("true", t).ok()) {
                    throw new IllegalStateException("exec true failed in the sandbox");
                }
            }
        };
        Supplier<Sandbox> warm = () -> provider.create(spec);

        // Warm up both paths (JIT, template cache).
        for (int i = 0; i < 30; i++) {
            plain.run();
            lifecycle.run();
        }
        Latencies plainLat = Latencies.measure(plain, iterations);
        Latencies lifeLat = Latencies.measure(lifecycle, iterations);
        Latencies execLat;
        try (Sandbox s = warm.get()) {
            execLat = Latencies.measure(() -> s.exec("true", t), iterations);
        }
        System.out.printf("%nlocal sandbox, sequential (%d iterations each)%n", iterations);
        System.out.printf("  %-34s p50 %7.2f ms  p99 %7.2f ms  mean %7.2f ms%n", "plain spawn of bash -c true", plainLat.percentileMs(50),
                plainLat.percentileMs(99), plainLat.meanMs());
        System.out.printf("  %-34s p50 %7.2f ms  p99 %7.2f ms  mean %7.2f ms%n", "sandbox create + exec true + close",
                lifeLat.percentileMs(50), lifeLat.percentileMs(99), lifeLat.meanMs());
        System.out.printf("  %-34s p50 %7.2f ms  p99 %7.2f ms  mean %7.2f ms%n", "exec true in a live sandbox", execLat.percentileMs(50),
                execLat.percentileMs(99), execLat.meanMs());
        System.out.printf("  ratio lifecycle / plain spawn (p50): %.2fx   exec / plain spawn (p50): %.2fx%n",
                lifeLat.percentileMs(50) / plainLat.percentileMs(50), execLat.percentileMs(50) / plainLat.percentileMs(50));

        phases(provider, spec, t, iterations);

        System.out.printf("%nsustained throughput (operations/s, %d operations per level)%n", iterations);
        for (int workers : new int[] {1, 8, 32}) {
            double p = throughput(plain, workers, iterations);
            double l = throughput(lifecycle, workers, iterations);
            System.out.printf("  %2d concurrent: plain %8.1f/s   sandbox lifecycle %8.1f/s   ratio %.2fx%n", workers, p, l, p / l);
        }
        searchLargeRepository(provider);
        provider.close();
    }

    /** Where a lifecycle's time goes: create (workspace mount and copy), the first command (bubblewrap and its supervisor start), close. */
    private static void phases(LocalSandboxProvider provider, SandboxSpec spec, Duration t, int iterations) {
        var create = new long[iterations];
        var first = new long[iterations];
        var close = new long[iterations];
        for (int i = 0; i < iterations; i++) {
            long a = System.nanoTime();
            Sandbox s = provider.create(spec);
            long b = System.nanoTime();
            s.exec("true", t);
            long c = System.nanoTime();
            s.close();
            long d = System.nanoTime();
            create[i] = b - a;
            first[i] = c - b;
            close[i] = d - c;
        }
        System.out.printf("  lifecycle by phase (p50): create %.2f ms, first exec %.2f ms, close %.2f ms%n", p50(create), p50(first), p50(close));
    }

    private static double p50(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2] / 1e6;
    }

    /** The search tool on a 10,000-file repository: what an agent waits for per search. */
    private static void searchLargeRepository(LocalSandboxProvider provider) throws Exception {
        Path big = Files.createTempDirectory("bench-10k");
        for (int d = 0; d < 100; d++) {
            Path dir = Files.createDirectories(big.resolve("pkg" + d));
            for (int f = 0; f < 100; f++) {
                Files.writeString(dir.resolve("mod" + f + ".py"), "def f" + f + "(x):\n    return x + " + (d * 100 + f) + "\n" + "# filler\n".repeat(20));
            }
        }
        Files.writeString(big.resolve("pkg42/mod7.py"), "def needle_in_haystack():\n    return 1\n");
        try (Sandbox s = provider.create(SandboxSpec.of(new WorkspaceSource.Dir(big)))) {
            var ctx = new ToolContext(s, Duration.ofSeconds(60), Duration.ofSeconds(60));
            var tools = Tools.standard();
            var args = JsonNodeFactory.instance.objectNode().put("pattern", "needle_in_haystack");
            long[] ns = new long[10];
            String found = "";
            for (int i = 0; i < ns.length; i++) {
                long t0 = System.nanoTime();
                found = tools.call("search", args, ctx).text();
                ns[i] = System.nanoTime() - t0;
            }
            var lat = new Latencies(ns);
            System.out.printf("%nsearch tool on a 10,000-file repository: p50 %.1f ms, max %.1f ms (found: %s)%n", lat.percentileMs(50),
                    lat.percentileMs(100), found.contains("pkg42/mod7.py:1:def needle_in_haystack") ? "yes" : "NO");
        }
    }

    private static double throughput(Runnable op, int workers, int total) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        try {
            long start = System.nanoTime();
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < total; i++) {
                fs.add(pool.submit(op));
            }
            for (Future<?> f : fs) {
                f.get();
            }
            return total / ((System.nanoTime() - start) / 1e9);
        } finally {
            pool.shutdown();
        }
    }
}
