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
    @picocli.CommandLine.Mixin
    HostFolders folders = new HostFolders();

    @Option(names = "--reruns", defaultValue = "0", description = "Extra runs when a listed test fails (flaky detection).")
    int reruns;

    @Option(names = "--flaky-rule", defaultValue = "strict", description = "strict | majority | any")
    String flakyRule;

    @Option(names = "--sandbox-root", paramLabel = "DIR", description = "Where sandboxes live (default: the system temp dir).")
    Path sandboxRoot;

    /** The harness's options; an {@link IllegalArgumentException} for an unknown flaky rule or a mounted folder sandbox users cannot read. */
    VerifierOptions options() {
        var problems = folders.problems();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("\n", problems));
        }
        return VerifierOptions.defaults().withReruns(reruns, FlakyRule.of(flakyRule)).withMaven(folders.mavenRepo, folders.mavenHome)
                .withMirrors(folders.mirrors).withNpmCache(folders.npmCache).withPython(folders.python());
    }

    /** Runs {@code work} with a harness on fresh local sandboxes, closed after. */
    <T> T run(Function<Harness, T> work) {
        var config = sandboxRoot == null ? LocalSandboxConfig.defaults() : LocalSandboxConfig.defaults().withRoot(sandboxRoot);
        try (var sandboxes = new LocalSandboxProvider(config)) {
            return work.apply(new Harness(sandboxes, options()));
        }
    }
}
