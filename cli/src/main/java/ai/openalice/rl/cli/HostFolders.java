package ai.openalice.rl.cli;

import ai.openalice.rl.harness.PythonEnvironments;
import ai.openalice.rl.harness.SandboxReadable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The host folders tests need in their sandboxes — git mirrors, a Maven repository and
 * installation, an npm cache, Python environments — as {@code verify}, {@code eval} and {@code train} take them. Each
 * must be a folder sandbox users can read.
 */
public final class HostFolders {
    @Option(names = "--mirrors", paramLabel = "DIR", description = "Git mirrors (<owner>__<name>) for tasks without a workspace.")
    public Path mirrors;

    @Option(names = "--maven-repo", paramLabel = "DIR",
            description = "A local Maven repository mounted read-only for offline Java builds (readable by sandbox users).")
    public Path mavenRepo;

    @Option(names = "--maven-home", paramLabel = "DIR", description = "A Maven 3.9+ installation used inside the sandbox.")
    public Path mavenHome;

    @Option(names = "--npm-cache", paramLabel = "DIR",
            description = "An npm cache (npm install --cache DIR fills it) for offline JavaScript builds (readable by sandbox users).")
    public Path npmCache;

    @Option(names = "--python-envs", paramLabel = "DIR", description = "Where the Python environments of tasks that name toolchain.python"
            + " are built and cached (readable by sandbox users; default: /var/cache/alice-rl/python-envs as root, else"
            + " ~/.cache/alice-rl/python-envs).")
    public Path pythonEnvs;

    @Option(names = "--python-root", paramLabel = "DIR", description = "A folder of Python installations by version (X.Y.Z/bin/pythonX.Y,"
            + " as pyenv's versions folder) to build environments from; repeatable (default: ~/.pyenv/versions).")
    public List<Path> pythonRoots;

    /** The Python environments of tasks that name {@code toolchain.python}: where they are cached and built from. */
    public PythonEnvironments python() {
        return new PythonEnvironments(pythonEnvs != null ? pythonEnvs : PythonEnvironments.defaultCache(),
                pythonRoots == null || pythonRoots.isEmpty() ? PythonEnvironments.defaultRoots() : pythonRoots);
    }

    /** Each given folder by its option. */
    public Map<String, Path> byOption() {
        var m = new LinkedHashMap<String, Path>();
        m.put("--mirrors", mirrors);
        m.put("--maven-repo", mavenRepo);
        m.put("--maven-home", mavenHome);
        m.put("--npm-cache", npmCache);
        return m;
    }

    /** What is wrong with the given folders (missing, or unreadable by sandbox users), one line each; empty when nothing. */
    public List<String> problems() {
        var out = new ArrayList<String>();
        byOption().forEach((option, dir) -> {
            if (dir != null && !Files.isDirectory(dir)) {
                out.add(option + " " + dir + ": not a folder");
            }
        });
        return out.isEmpty() ? SandboxReadable.problems(byOption()) : out;
    }
}
