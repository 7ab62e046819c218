package ai.openalice.rl.bench;

import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.events.task.WorkspaceSpec;
import ai.openalice.rl.harness.Harness;
import ai.openalice.rl.harness.MavenFixture;
import ai.openalice.rl.harness.Verdict;
import ai.openalice.rl.harness.VerifierOptions;
import ai.openalice.rl.sandbox.HostCommand;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import ai.openalice.rl.sandbox.local.Templates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Verifier overhead: the harness's wall time for the gold patch (fresh sandbox, patch, reset,
 * hidden tests, run, report parsing) ÷ running the same test command directly on a prepared
 * checkout, in the same run, for the Python example task and the Maven fixture.
 */
final class VerifierBench {
    private static final Duration T = Duration.ofMinutes(5);
    /** What the harness gives every JVM in the sandbox; the direct run gets the same, for a fair ratio. */
    private static final String JVM_OPTIONS = "-Xmx1g -XX:MaxMetaspaceSize=512m -XX:ReservedCodeCacheSize=128m "
            + "-XX:CompressedClassSpaceSize=128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1";

    private VerifierBench() {}

    static void run(String[] args) throws Exception {
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        var provider = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(Path.of("/tmp", "alice-rl-bench-verifier")));
        Task py = ((TaskReader.Line.Valid) TaskReader.read(Path.of("examples/tasks/calc.jsonl")).getFirst()).task();
        report("python unittest (examples/tasks example__calc-1)", n, new Harness(provider, VerifierOptions.defaults()), py,
                List.of("bash", "-c", py.testCommand()), null);

        String mavenHome = System.getProperty("maven.home", System.getenv("MAVEN_HOME"));
        if (mavenHome == null) {
            System.out.println("\nmaven fixture: skipped (pass -Dmaven.home=<a Maven 3.9 installation>)");
        } else {
            MavenFixture f = MavenFixture.create(mavenHome);
            Task java = f.task();
            report("maven junit5 (harness MavenFixture)", Math.max(2, n / 2), new Harness(provider, f.options()), java,
                    List.of("env", "JAVA_TOOL_OPTIONS=" + JVM_OPTIONS, f.maven.resolve("bin/mvn").toString(), "-q", "-o", "-B", "-Dmaven.repo.local=" + f.work.resolve("direct-m2"),
                            "-Dmaven.repo.local.tail=" + f.repository, "test"), f);
            Templates.deleteQuietly(f.work);
        }
        provider.close();
    }

    private static void report(String name, int n, Harness harness, Task task, List<String> direct, MavenFixture f) throws Exception {
        Path checkout = prepare(task);
        // the first (cold) verification: the workspace template made, the JVM's code not yet compiled; also the warm-up
        long s0 = System.nanoTime();
        Verdict first = harness.verify(task, task.patch());
        long coldHarness = System.nanoTime() - s0;
        s0 = System.nanoTime();
        HostCommand.run(direct, checkout, T);
        long coldDirect = System.nanoTime() - s0;
        if (!first.resolved()) {
            throw new IllegalStateException(name + ": the gold patch was not resolved: " + first);
        }
        long[] h = new long[n];
        long[] d = new long[n];
        long[] fresh = new long[n];
        for (int i = 0; i < n; i++) {
            long s = System.nanoTime();
            Verdict v = harness.verify(task, task.patch());
            h[i] = System.nanoTime() - s;
            if (!v.resolved()) {
                throw new IllegalStateException(name + ": the gold patch was not resolved: " + v);
            }
            s = System.nanoTime();
            var r = HostCommand.run(direct, checkout, T);
            d[i] = System.nanoTime() - s;
            if (!r.ok()) {
                throw new IllegalStateException(name + ": the direct run failed: " + r.output());
            }
            // What a verification has to do: the tests of a checkout never built (its copy is not timed).
            Path copy = Files.createTempDirectory("bench-fresh");
            HostCommand.check(List.of("cp", "-a", checkout + "/.", copy.toString()), null, T);
            HostCommand.check(List.of("rm", "-rf", copy.resolve("target").toString()), null, T);
            s = System.nanoTime();
            r = HostCommand.run(direct, copy, T);
            fresh[i] = System.nanoTime() - s;
            Templates.deleteQuietly(copy);
            if (!r.ok()) {
                throw new IllegalStateException(name + ": the direct run on a fresh checkout failed: " + r.output());
            }
        }
        double hm = median(h);
        double dm = median(d);
        double fm = median(fresh);
        System.out.printf("%n%s, %d runs each%n  harness (gold patch)  median %8.1f ms%n  direct test command   median %8.1f ms%n"
                + "  overhead ratio        %8.2fx (target <= 1.15)%n", name, n, hm, dm, hm / dm);
        System.out.printf("  direct on a fresh checkout (nothing built yet) median %8.1f ms, harness / that %.2fx%n", fm, hm / fm);
        System.out.printf("  first (cold) run: harness %8.1f ms, direct %8.1f ms, ratio %.2fx%n", coldHarness / 1e6, coldDirect / 1e6,
                (double) coldHarness / coldDirect);
    }

    /** A plain checkout of the base with the gold patch and the hidden tests applied, to run the command directly. */
    private static Path prepare(Task task) throws Exception {
        Path dir = Files.createTempDirectory("bench-direct");
        switch (task.workspace()) {
            case WorkspaceSpec.Git g ->
                    HostCommand.check(List.of("bash", "-c", "git -C \"$1\" archive \"$2\" | tar -x -C \"$3\"", "bash", g.path(), g.commit(),
                            dir.toString()), null, T);
            case WorkspaceSpec.Dir dd -> HostCommand.check(List.of("cp", "-a", dd.path() + "/.", dir.toString()), null, T);
            default -> throw new IllegalArgumentException("bench supports git and dir workspaces");
        }
        for (String patch : List.of(task.patch(), task.testPatch())) {
            var r = HostCommand.run(List.of("patch", "-p1", "--batch"), dir, T, patch.getBytes());
            if (!r.ok()) {
                throw new IllegalStateException("cannot apply a patch for the direct run: " + r.output());
            }
        }
        return dir;
    }

    private static double median(long[] ns) {
        long[] c = ns.clone();
        Arrays.sort(c);
        return c[c.length / 2] / 1e6;
    }
}
