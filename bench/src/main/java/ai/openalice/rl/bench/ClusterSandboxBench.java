package ai.openalice.rl.bench;

import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.kubernetes.KubernetesSandboxConfig;
import ai.openalice.rl.sandbox.kubernetes.KubernetesSandboxProvider;
import ai.openalice.rl.sandbox.kubernetes.SandboxLabels;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Sandbox pods on a real cluster ({@code dev/stack cluster up}; its kubeconfig in KUBECONFIG)
 * against the local bubblewrap sandbox, in one run: a cold sandbox's create + first exec + delete,
 * p50 and p99 (and where the time goes), then an exec in a live pod against one in a live
 * bubblewrap sandbox and a plain spawn of the same command.
 *
 * <p>{@code bench/run cluster-sandbox [LIFECYCLES] [EXECS]} (default 20 and 100).
 */
final class ClusterSandboxBench {
    private ClusterSandboxBench() {}

    static void run(String[] args) throws Exception {
        int lifecycles = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int execs = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        String kubeconfig = System.getenv("KUBECONFIG");
        if (kubeconfig == null || kubeconfig.isBlank()) {
            throw new IllegalArgumentException("KUBECONFIG is not set: bring the cluster up with dev/stack cluster up and export what it prints");
        }
        String image = System.getProperty("alice.sandbox-image", "alice-rl.local/sandbox:bookworm");
        String ns = "alice-bench-" + UUID.randomUUID().toString().substring(0, 8);
        Path ws = Files.createTempDirectory("bench-ws");
        Files.writeString(ws.resolve("main.py"), "print('hello')\n");
        var spec = SandboxSpec.of(new WorkspaceSource.Dir(ws));
        Duration t = Duration.ofSeconds(60);
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(Path.of(kubeconfig)))).build()) {
            client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
            var d = KubernetesSandboxConfig.defaults(ns, "bench");
            var config = new KubernetesSandboxConfig(ns, image, d.workdir(), "bench", 0, Duration.ofMinutes(2), d.activeDeadline(), "1");
            try (var pods = new KubernetesSandboxProvider(client, config, Files.createTempDirectory("bench-templates"));
                    var local = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(Path.of("/tmp", "alice-rl-bench-sandboxes")))) {
                lifecycles(client, ns, pods, local, spec, t, lifecycles);
                execs(pods, local, spec, t, execs);
            } finally {
                client.namespaces().withName(ns).delete();
            }
        }
    }

    private static void lifecycles(KubernetesClient client, String ns, KubernetesSandboxProvider pods, LocalSandboxProvider local, SandboxSpec spec,
            Duration t, int n) throws Exception {
        long[] create = new long[n];
        long[] first = new long[n];
        long[] delete = new long[n];
        long[] total = new long[n];
        long[] localTotal = new long[n];
        for (int i = -1; i < n; i++) { // the first round warms both paths up (JIT, the image's first start)
            long a = System.nanoTime();
            Sandbox s = pods.create(spec);
            long b = System.nanoTime();
            check(s.exec("python3 main.py", t).stdout(), "hello\n");
            long c = System.nanoTime();
            s.close();
            // deleted: the API server no longer has the pod (the kubelet has stopped its containers)
            client.pods().inNamespace(ns).withLabel(SandboxLabels.OWNER, "bench").informOnCondition(l -> l.isEmpty()).get(2, TimeUnit.MINUTES);
            long e = System.nanoTime();
            long f = System.nanoTime();
            try (Sandbox l = local.create(spec)) {
                check(l.exec("python3 main.py", t).stdout(), "hello\n");
            }
            long g = System.nanoTime();
            if (i >= 0) {
                create[i] = b - a;
                first[i] = c - b;
                delete[i] = e - c;
                total[i] = e - a;
                localTotal[i] = g - f;
            }
        }
        var pod = new Latencies(total);
        var bwrap = new Latencies(localTotal);
        System.out.printf("%ncold sandbox: create + first exec (python3 main.py) + delete, %d each%n", n);
        System.out.printf("  %-28s p50 %8.1f ms  p99 %8.1f ms%n", "pod on the real cluster", pod.percentileMs(50), pod.percentileMs(99));
        System.out.printf("  %-28s p50 %8.1f ms  p99 %8.1f ms%n", "local bubblewrap sandbox", bwrap.percentileMs(50), bwrap.percentileMs(99));
        System.out.printf("  ratio pod / bubblewrap (p50): %.1fx%n", pod.percentileMs(50) / bwrap.percentileMs(50));
        System.out.printf("  the pod's phases (p50): create to Running with the workspace in %.1f ms, first exec %.1f ms, delete until gone %.1f ms%n",
                new Latencies(create).percentileMs(50), new Latencies(first).percentileMs(50), new Latencies(delete).percentileMs(50));
    }

    private static void execs(KubernetesSandboxProvider pods, LocalSandboxProvider local, SandboxSpec spec, Duration t, int n) throws Exception {
        Latencies inPod;
        Latencies inBwrap;
        try (Sandbox s = pods.create(spec); Sandbox l = local.create(spec)) {
            inPod = measure(() -> check(s.exec("true", t).exitCode() + "", "0"), n);
            inBwrap = measure(() -> check(l.exec("true", t).exitCode() + "", "0"), n);
        }
        Latencies plain = measure(() -> {
            try {
                Process p = new ProcessBuilder("bash", "-c", "true").start();
                p.getInputStream().readAllBytes();
                check(p.waitFor() + "", "0");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, n);
        System.out.printf("%nexec true in a live sandbox, %d each%n", n);
        System.out.printf("  %-28s p50 %8.2f ms  p99 %8.2f ms%n", "live pod (exec stream)", inPod.percentileMs(50), inPod.percentileMs(99));
        System.out.printf("  %-28s p50 %8.2f ms  p99 %8.2f ms%n", "live bubblewrap sandbox", inBwrap.percentileMs(50), inBwrap.percentileMs(99));
        System.out.printf("  %-28s p50 %8.2f ms  p99 %8.2f ms%n", "plain spawn of bash -c true", plain.percentileMs(50), plain.percentileMs(99));
        System.out.printf("  ratio pod / plain spawn (p50): %.2fx   bubblewrap / plain spawn (p50): %.2fx%n",
                inPod.percentileMs(50) / plain.percentileMs(50), inBwrap.percentileMs(50) / plain.percentileMs(50));
    }

    private static void check(String got, String want) {
        if (!got.equals(want)) {
            throw new IllegalStateException("expected " + want.strip() + ", got " + got.strip());
        }
    }

    /** Ten warm-up runs (JIT, a first connection), then n timed ones. */
    private static Latencies measure(Runnable op, int n) {
        for (int i = 0; i < Math.min(10, n); i++) {
            op.run();
        }
        return Latencies.measure(op, n);
    }
}
