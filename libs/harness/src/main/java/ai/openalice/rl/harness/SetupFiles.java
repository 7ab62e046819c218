package ai.openalice.rl.harness;

import ai.openalice.rl.sandbox.HostCommand;
import ai.openalice.rl.sandbox.WorkspaceSource;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The files a Python environment's packages come from — a requirements or conda environment file
 * of the repository — as SWE-bench reads them: at the task's {@code environment_setup_commit}
 * ({@code toolchain.python.setup_commit}), not at its base.
 */
final class SetupFiles {
    /** What the build is given of them, in words: part of every environment's key, changed when this changes. */
    static final String RECIPE = "setup files at the setup commit, with their folder (or, at the top, its text files)\n";
    /** How their blob ids are keyed among the environment's set-up blobs. */
    static final String PREFIX = "setup:";

    private SetupFiles() {}

    /** The files of the repository the spec's packages name: its requirements or environment files, where SWE-bench looks for them. */
    static List<String> of(JsonNode spec) {
        var out = new ArrayList<String>();
        spec.path("requirements").forEach(f -> out.add(f.asText()));
        spec.path("env_yml").forEach(f -> out.add(f.asText()));
        if (out.isEmpty() && List.of("requirements.txt", "environment.yml").contains(spec.path("packages").asText())) {
            out.add(spec.path("packages").asText());
        }
        return out;
    }

    /**
     * The commit SWE-bench reads the spec's requirements or environment file at ({@code setup_commit}:
     * the row's environment_setup_commit), when the workspace is a git repository that has it; null:
     * the files are read at the task's base, as for a workspace without history.
     */
    static String commit(JsonNode spec, WorkspaceSource source) throws IOException {
        String commit = spec.path("setup_commit").asText(null);
        if (commit == null || of(spec).isEmpty() || !(source instanceof WorkspaceSource.Git g)) {
            return null;
        }
        var r = HostCommand.run(List.of("git", "-C", g.repo().toString(), "cat-file", "-e", commit + "^{commit}"), null, Duration.ofMinutes(1));
        return r.ok() ? commit : null;
    }

    /** The blob ids of {@code files} at {@code commit}, keyed {@code setup:<path>}. */
    static Map<String, String> blobs(WorkspaceSource.Git g, String commit, List<String> files) throws IOException {
        var cmd = new ArrayList<>(List.of("git", "-C", g.repo().toString(), "ls-tree", commit, "--"));
        cmd.addAll(files);
        var out = new TreeMap<String, String>();
        for (String line : HostCommand.check(cmd, null, Duration.ofMinutes(1)).split("\n")) {
            String[] meta = line.split("\t", 2)[0].split(" ");
            if (meta.length == 3 && meta[1].equals("blob")) {
                out.put(PREFIX + line.split("\t", 2)[1], meta[2]);
            }
        }
        return out;
    }

    /** {@code files} and their neighbours as they are at {@code commit}, unpacked into a folder beside {@code checkout} (removed with it). */
    static Path checkOut(WorkspaceSource.Git g, String commit, List<String> files, Path checkout) throws IOException {
        Path into = checkout.resolveSibling(checkout.getFileName() + ".setup");
        Files.createDirectories(into);
        var present = blobs(g, commit, files).keySet().stream().map(k -> k.substring(PREFIX.length())).toList();
        if (!present.isEmpty()) {
            var cmd = new ArrayList<>(List.of("bash", "-c", "git -C \"$0\" archive \"$1\" -- \"${@:3}\" | tar -x -C \"$2\"", g.repo().toString(), commit,
                    into.toString()));
            // with what a requirements file's -r lines include: the files beside it (its folder; at the top, the text files there)
            for (String f : present) {
                int slash = f.lastIndexOf('/');
                cmd.addAll(slash > 0 ? List.of(f.substring(0, slash)) : f.endsWith(".txt") ? List.of(f, ":(glob)*.txt") : List.of(f));
            }
            HostCommand.check(cmd, null, Duration.ofMinutes(2));
        }
        return into;
    }

}
