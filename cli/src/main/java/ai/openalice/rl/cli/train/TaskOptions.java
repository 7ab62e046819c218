package ai.openalice.rl.cli.train;

import ai.openalice.rl.cli.HostFolders;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * What {@code alice-rl train} trains on: tiny-swe generated here, or the user's task file with the
 * host folders its tests need (the verifier's git mirrors, Maven repository and installation, npm
 * cache — as {@code alice-rl verify} takes them).
 */
final class TaskOptions {
    @Option(names = "--tasks", defaultValue = "1024", paramLabel = "N|FILE", description = "A JSONL task file to train on (docs/task-format.md;"
            + " its split=eval tasks are the held-out probes), or the number of tiny-swe training tasks to generate (default: ${DEFAULT-VALUE})."
            + " Fixed on the first run of a state folder.")
    String tasks;

    @Option(names = "--heldout", defaultValue = "16", description = "Held-out tasks: generated with tiny-swe; with a task file that has no"
            + " split=eval task, drawn from it by --seed (at most a quarter of it). 0: no held-out probes (default: ${DEFAULT-VALUE}).")
    int heldout;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the generated task suite and of the held-out draw (default: ${DEFAULT-VALUE}).")
    long seed;

    /** What the verifier mounts for the tasks' tests, and the runner's mirrors. */
    @picocli.CommandLine.Mixin
    HostFolders folders = new HostFolders();

    /** A folder option that names no folder sandboxes can read, or a bad count; null when none. */
    String problem() {
        var problems = folders.problems();
        if (!problems.isEmpty()) {
            return String.join("\n", problems);
        }
        return heldout < 0 ? "--heldout must be >= 0, got " + heldout : null;
    }

    /**
     * The runner's configuration for what the tasks need (given folders only): the agent's sandboxes
     * get the mirrors, Maven and the tasks' Python environments (the same cache) as the verifier's do
     * (not the npm cache: the verifier copies it into /tmp before its test command; the agent is not given that step).
     */
    Map<String, Object> runnerConfig() {
        var c = new LinkedHashMap<String, Object>();
        put(c, "runner.mirrors", folders.mirrors);
        put(c, "runner.maven-repository", folders.mavenRepo);
        put(c, "runner.maven-home", folders.mavenHome);
        python(c, "runner");
        return c;
    }

    /** The verifier's configuration for what the tasks need (given folders only). */
    Map<String, Object> verifierConfig() {
        var c = new LinkedHashMap<String, Object>();
        put(c, "verifier.mirrors", folders.mirrors);
        put(c, "verifier.maven-repository", folders.mavenRepo);
        put(c, "verifier.maven-home", folders.mavenHome);
        put(c, "verifier.npm-cache", folders.npmCache);
        python(c, "verifier");
        return c;
    }

    private void python(Map<String, Object> config, String service) {
        put(config, service + ".python-envs", folders.pythonEnvs);
        if (folders.pythonRoots != null && !folders.pythonRoots.isEmpty()) {
            config.put(service + ".python-roots", String.join(",", folders.pythonRoots.stream().map(Path::toString).toList()));
        }
    }

    private static void put(Map<String, Object> config, String key, Path value) {
        if (value != null) {
            config.put(key, value.toAbsolutePath());
        }
    }
}
