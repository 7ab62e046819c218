package ai.openalice.rl.cli;

import ai.openalice.rl.harness.FlakyRule;
import ai.openalice.rl.harness.Harness;
import ai.openalice.rl.harness.VerifierOptions;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import java.nio.file.Path;
import java.util.function.Function;
import picocli.CommandLine.Option;

/** The options of the verifier harness in local sandboxes, shared by {@code verify} and {@code eval --predictions}. */
final class LocalVerifier {
    @Option(names = "--mirrors", paramLabel = "DIR", description = "Git mirrors (<owner>__<name>) for tasks without a workspace.")
    Path mirrors;

    @Option(names = "--maven-repo", paramLabel = "DIR",
            description = "A local Maven repository mounted read-only for offline Java builds (readable by sandbox users).")
    Path mavenRepo;

    @Option(names = "--maven-home", paramLabel = "DIR", description = "A Maven 3.9+ installation used inside the sandbox.")
    Path mavenHome;

    @Option(names = "--npm-cache", paramLabel = "DIR",
            description = "An npm cache (npm install --cache DIR fills it) for offline JavaScript builds (readable by sandbox users).")
    Path npmCache;

    @Option(names = "--reruns", defaultValue = "0", description = "Extra runs when a listed test fails (flaky detection).")
    int reruns;

    @Option(names = "--flaky-rule", defaultValue = "strict", description = "strict | majority | any")
    String flakyRule;

    @Option(names = "--sandbox-root", paramLabel = "DIR", description = "Where sandboxes live (default: the system temp dir).")
    Path sandboxRoot;

    /** The harness's options; an {@link IllegalArgumentException} for an unknown flaky rule or a mounted folder sandbox users cannot read. */
    VerifierOptions options() {
        var mounted = new java.util.LinkedHashMap<String, Path>();
        mounted.put("--mirrors", mirrors);
        mounted.put("--maven-repo", mavenRepo);
        mounted.put("--maven-home", mavenHome);
        mounted.put("--npm-cache", npmCache);
        var problems = ai.openalice.rl.harness.SandboxReadable.problems(mounted);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("\n", problems));
        }
        return VerifierOptions.defaults().withReruns(reruns, FlakyRule.of(flakyRule)).withMaven(mavenRepo, mavenHome).withMirrors(mirrors)
                .withNpmCache(npmCache);
    }

    /** Runs {@code work} with a harness on fresh local sandboxes, closed after. */
    <T> T run(Function<Harness, T> work) {
        var config = sandboxRoot == null ? LocalSandboxConfig.defaults() : LocalSandboxConfig.defaults().withRoot(sandboxRoot);
        try (var sandboxes = new LocalSandboxProvider(config)) {
            return work.apply(new Harness(sandboxes, options()));
        }
    }
}
