package ai.openalice.rl.harness;

import ai.openalice.rl.sandbox.SandboxLimits;
import java.nio.file.Path;

/**
 * How the harness runs.
 *
 * @param rerunFailures how many extra runs when a listed test did not pass (0 = none)
 * @param flakyRule how a test with differing outcomes is judged
 * @param mavenRepository a local Maven repository exposed read-only at {@code /maven-repo} (as the
 *     tail of a writable one in /tmp), for offline Java builds; it must be readable by sandbox
 *     users (not under a 0700 home); null = none
 * @param mavenHome a Maven 3.9+ installation exposed at {@code /opt/maven} and put first on PATH; null = the system's
 * @param mirrors the folder of git mirrors that tasks without {@code workspace} resolve to
 * @param limits the verification sandbox's limits
 * @param jvmRoot where the JDKs a task's toolchain picks from are
 * @param npmCache an npm cache (as {@code npm install --cache DIR} fills it) exposed read-only at
 *     {@code /npm-cache} and copied to a writable {@code /tmp/npm-cache} before the tests, with npm
 *     set to offline, for JavaScript builds without network; readable by sandbox users; null = none
 * @param python where the Python environments of tasks that name {@code toolchain.python} are
 *     built and cached (readable by sandbox users; by default {@link PythonEnvironments#defaultCache()}
 *     from pyenv's Pythons); null = such tasks get an environment verdict
 */
public record VerifierOptions(int rerunFailures, FlakyRule flakyRule, Path mavenRepository, Path mavenHome, Path mirrors, SandboxLimits limits,
        Path jvmRoot, Path npmCache, PythonEnvironments python) {

    /** Where the host's JDKs are (a task's {@code toolchain.java} picks one). */
    public static final Path HOST_JVMS = Path.of("/usr/lib/jvm");

    public static VerifierOptions defaults() {
        return new VerifierOptions(0, FlakyRule.STRICT, null, null, null, SandboxLimits.defaults().withOutputBytes(4 * 1024 * 1024), HOST_JVMS, null,
                new PythonEnvironments(PythonEnvironments.defaultCache(), PythonEnvironments.defaultRoots()));
    }

    public VerifierOptions withReruns(int n, FlakyRule rule) {
        return new VerifierOptions(n, rule, mavenRepository, mavenHome, mirrors, limits, jvmRoot, npmCache, python);
    }

    public VerifierOptions withMaven(Path repository, Path home) {
        return new VerifierOptions(rerunFailures, flakyRule, repository, home, mirrors, limits, jvmRoot, npmCache, python);
    }

    public VerifierOptions withMirrors(Path m) {
        return new VerifierOptions(rerunFailures, flakyRule, mavenRepository, mavenHome, m, limits, jvmRoot, npmCache, python);
    }

    /** JDKs from another folder than the host's (tests). */
    public VerifierOptions withJvmRoot(Path root) {
        return new VerifierOptions(rerunFailures, flakyRule, mavenRepository, mavenHome, mirrors, limits, root, npmCache, python);
    }

    public VerifierOptions withNpmCache(Path cache) {
        return new VerifierOptions(rerunFailures, flakyRule, mavenRepository, mavenHome, mirrors, limits, jvmRoot, cache, python);
    }

    public VerifierOptions withPython(PythonEnvironments environments) {
        return new VerifierOptions(rerunFailures, flakyRule, mavenRepository, mavenHome, mirrors, limits, jvmRoot, npmCache, environments);
    }
}
