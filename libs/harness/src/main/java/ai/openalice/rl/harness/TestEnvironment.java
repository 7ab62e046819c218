package ai.openalice.rl.harness;

import ai.openalice.rl.sandbox.ExecResult;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a task's tests need in a sandbox that the host provides: a JDK (its {@code bin} first on
 * {@code PATH}), a filled Maven repository read offline through a writable local one
 * ({@code /maven-repo}), a Maven installation ({@code /opt/maven}), an npm cache
 * ({@code /npm-cache}) — for the verifier's test runs and for the agent's, so that the agent can
 * run the tests it will be judged by.
 */
public record TestEnvironment(Map<String, String> env, List<SandboxSpec.ReadOnlyMount> mounts, List<String> workspaceSteps, String install) {
    static final String NPM_CACHE = "/tmp/npm-cache";
    /** Where pip installs the task's project in the sandbox: the user site, under the sandbox's private /tmp. */
    static final String USER_BASE = "/tmp/.local";
    private static final String SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    public TestEnvironment {
        env = Map.copyOf(env);
        mounts = List.copyOf(mounts);
        workspaceSteps = List.copyOf(workspaceSteps);
    }

    /** Without a project to install. */
    public TestEnvironment(Map<String, String> env, List<SandboxSpec.ReadOnlyMount> mounts, List<String> workspaceSteps) {
        this(env, mounts, workspaceSteps, null);
    }

    /** For {@code mavenRepository}, {@code mavenHome} and {@code npmCache} (each may be null) with {@code jdk} (null: the host's). */
    public static TestEnvironment of(Path mavenRepository, Path mavenHome, Path npmCache, Toolchains.Choice jdk) {
        var env = new HashMap<String, String>();
        var mounts = new ArrayList<SandboxSpec.ReadOnlyMount>();
        String javaHome = jdk != null ? jdk.jdk().home().toString() : System.getProperty("java.home");
        if (javaHome != null && javaHome.startsWith("/usr/")) {
            env.put("JAVA_HOME", javaHome);
        }
        String path = (jdk != null ? jdk.jdk().home() + "/bin:" : "") + SYSTEM_PATH;
        if (jdk != null) {
            env.put("PATH", path);
        }
        // JVMs size their reservations by the host's memory, which the sandbox's address-space
        // limit would refuse; every JVM in the sandbox (Maven, Surefire's fork) picks these up.
        env.put("JAVA_TOOL_OPTIONS", "-Xmx1g -XX:MaxMetaspaceSize=512m -XX:ReservedCodeCacheSize=128m -XX:CompressedClassSpaceSize=128m"
                + " -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
        if (mavenRepository != null) {
            mounts.add(new SandboxSpec.ReadOnlyMount(mavenRepository, "/maven-repo"));
            env.put("MAVEN_OPTS", "-Dmaven.repo.local=/tmp/m2 -Dmaven.repo.local.tail=/maven-repo");
            env.put("MAVEN_ARGS", "-o -B");
        }
        if (mavenHome != null) {
            mounts.add(new SandboxSpec.ReadOnlyMount(mavenHome, "/opt/maven"));
            env.put("PATH", "/opt/maven/bin:" + path);
        }
        if (npmCache != null) {
            mounts.add(new SandboxSpec.ReadOnlyMount(npmCache, "/npm-cache"));
            env.putAll(Map.of("npm_config_cache", NPM_CACHE, "npm_config_offline", "true", "npm_config_audit", "false",
                    "npm_config_fund", "false", "npm_config_update_notifier", "false"));
        }
        return new TestEnvironment(env, mounts, List.of());
    }

    /**
     * This environment with {@code python}'s (null: none) mounted read-only where it was built,
     * its interpreter first on {@code PATH} and its shared library found; pip installs into the
     * user site ({@code PYTHONUSERBASE=/tmp/.local}, not found through {@code HOME}: its scripts next on
     * {@code PATH}), offline and without build isolation (what a build needs is in the environment);
     * a project that takes its version from git tags (setuptools-scm) gets the task's; C compilers run
     * through ccache reading what the environment's build compiled (astropy's extensions: 125 s to 24 s
     * an install here), never writing to it.
     */
    public TestEnvironment withPython(PythonEnvironments.Built python) {
        if (python == null) {
            return this;
        }
        var e = new HashMap<>(env);
        String home = python.home().toString();
        e.put("PATH", USER_BASE + "/bin:" + home + "/bin:" + env.getOrDefault("PATH", SYSTEM_PATH));
        e.put("LD_LIBRARY_PATH", home + "/lib");
        e.putAll(Map.of("PIP_USER", "1", "PIP_NO_INDEX", "1", "PIP_NO_BUILD_ISOLATION", "0", "PIP_DISABLE_PIP_VERSION_CHECK", "1"));
        // The user site by name rather than through HOME: test suites that run Python in a
        // subprocess with HOME moved (pytest's own testdir does) still find the installed project.
        e.put("PYTHONUSERBASE", USER_BASE);
        if (python.projectVersion() != null) { // the workspace has no release tags for setuptools-scm to read
            e.put("SETUPTOOLS_SCM_PRETEND_VERSION", python.projectVersion());
        }
        if (Files.isDirectory(python.home().resolve(COMPILER_CACHE))) { // what the build compiled, read-only (build-python-env.sh)
            e.put("PATH", USER_BASE + "/bin:" + home + "/bin:/usr/lib/ccache:" + env.getOrDefault("PATH", SYSTEM_PATH));
            e.putAll(Map.of("CCACHE_DIR", home + "/" + COMPILER_CACHE, "CCACHE_READONLY", "1", "CCACHE_NOSTATS", "1",
                    "CCACHE_NOHASHDIR", "1", "CCACHE_SLOPPINESS", "locale", "CCACHE_TEMPDIR", "/tmp/.ccache-tmp"));
        }
        var m = new ArrayList<>(mounts);
        m.add(new SandboxSpec.ReadOnlyMount(python.home(), home));
        return new TestEnvironment(e, m, python.workspaceSteps(), python.install());
    }

    /**
     * Runs in {@code sandbox}'s fresh workspace the environment's set-up steps that edit the repository
     * ({@link PythonEnvironments.Built#workspaceSteps}: SWE-bench's {@code pre_install} edits, at the
     * workspace's own commit) and commits what they changed, as SWE-bench's images hold them: the tests
     * run with them, and a diff of the workspace shows only what was done after. Null when done (or
     * nothing to do), else why it could not be.
     */
    public String commitWorkspaceEdits(Sandbox sandbox) {
        if (workspaceSteps.isEmpty()) {
            return null;
        }
        sandbox.writeFile(STEPS, "set -e\n" + String.join("\n", workspaceSteps) + "\n");
        ExecResult r = sandbox.exec("bash " + STEPS + " 2>&1; s=$?; rm -f " + STEPS + "; [ $s = 0 ] || exit $s;"
                + " git add -A && { git diff --cached --quiet || git -c user.name=SWE-bench -c user.email=setup@swebench.config commit -q --no-verify -m SWE-bench 2>&1; }",
                Duration.ofMinutes(2));
        return r.ok() ? null : r.stdout().strip();
    }

    /**
     * Installs the task's project from {@code sandbox}'s workspace as SWE-bench's images hold it
     * installed (the spec's {@code install}, e.g. {@code pip install -e .}: into the user site,
     * offline, editable), so that an agent's commands import the code it edits and can run the tests
     * it will be judged by (a {@code src/} layout such as pytest's, or compiled extensions such as
     * astropy's, cannot be imported from the checkout alone). The verifier installs again after the
     * patch, as SWE-bench's evaluation does. Null when done (or nothing to do), else the install's
     * last words.
     */
    public String installProject(Sandbox sandbox) {
        if (install == null) {
            return null;
        }
        ExecResult r = sandbox.exec("(" + install + ") > /tmp/.alice-rl-install.log 2>&1 || { s=$?; tail -c 2000 /tmp/.alice-rl-install.log; exit $s; }",
                Duration.ofMinutes(10));
        return r.ok() ? null : (r.timedOut() ? "timed out after 10 minutes: " : "exit " + r.exitCode() + ": ") + r.stdout().strip();
    }

    private static final String STEPS = ".alice-rl-setup.sh";
    /** Where an environment keeps the compiler cache its build filled (ccache's), for sandboxes to read. */
    static final String COMPILER_CACHE = ".ccache";

    /** {@code spec} with this environment and these mounts. */
    public SandboxSpec applyTo(SandboxSpec spec) {
        return spec.withEnv(env).withMounts(mounts);
    }
}
