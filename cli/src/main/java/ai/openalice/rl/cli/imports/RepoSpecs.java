package ai.openalice.rl.cli.imports;

import ai.openalice.rl.harness.PatchPaths;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The repository spec table: how a repository's tests run when a dataset row does not say. Read in
 * this order: alice-rl's own entries ({@code repo-specs.json} in the command line, or a file given
 * with {@code --specs}) per repository and version, else the repository's default; then
 * SWE-bench's table of every repository and version its harness knows ({@link SweBenchSpecs}), then
 * SWE-Gym's of the repositories its fork of that harness adds; then the row's language's default.
 */
public final class RepoSpecs {
    private final JsonNode table;
    private final SweBenchSpecs swebench;
    private final SweBenchSpecs sweGym;

    private RepoSpecs(JsonNode table) throws IOException {
        this.table = table;
        this.swebench = SweBenchSpecs.bundled();
        this.sweGym = SweBenchSpecs.sweGym();
    }

    public static RepoSpecs bundled() throws IOException {
        try (InputStream in = RepoSpecs.class.getResourceAsStream("/repo-specs.json")) {
            return new RepoSpecs(DatasetFile.JSON.readTree(in));
        }
    }

    /** alice-rl's entries from {@code file} in place of the bundled ones, before SWE-bench's table. */
    public static RepoSpecs read(Path file) throws IOException {
        return new RepoSpecs(DatasetFile.JSON.readTree(file.toFile()));
    }

    /** SWE-bench's table, the second place a repository is looked up, and SWE-Gym's, the third. */
    public List<SweBenchSpecs> harnessTables() {
        return List.of(swebench, sweGym);
    }

    /** What runs a task's tests: the command (placeholders filled), its report, the toolchain it needs (null: any). */
    public record Resolved(String testCommand, JsonNode testReport, String from, JsonNode toolchain) {}

    /**
     * The spec for {@code repo} at {@code version} (or the {@code language}'s default), filled for
     * the listed tests and the files the task's test patch touches; empty when none applies.
     *
     * @throws IllegalArgumentException when the spec that applies cannot run the task's tests (see
     *     {@link SweBenchSpecs#resolve})
     */
    public Optional<Resolved> resolve(String repo, String version, String language, List<String> tests, String testPatch) {
        JsonNode r = table.path("repos").path(repo == null ? "" : repo);
        JsonNode spec = version != null && r.path("versions").has(version) ? merged(r.path("default"), r.path("versions").path(version)) : r.path("default");
        String from = "repos." + repo + (version != null && r.path("versions").has(version) ? ".versions." + version : ".default");
        if (spec.isMissingNode() || spec.isEmpty()) {
            var sweBench = swebench.resolve(repo, version, testPatch).or(() -> sweGym.resolve(repo, version, testPatch));
            if (sweBench.isPresent()) {
                return sweBench;
            }
            spec = table.path("languages").path(language == null ? "" : language.toLowerCase());
            from = "languages." + language;
        }
        if (spec.isMissingNode() || spec.isEmpty()) {
            return Optional.empty();
        }
        JsonNode build = table.path("builds").path(spec.path("build").asText(""));
        String command = spec.has("test_command") ? spec.get("test_command").asText() : build.path("test_command").asText(null);
        JsonNode report = spec.has("test_report") ? spec.get("test_report") : build.get("test_report");
        if (command == null || report == null) {
            throw new IllegalArgumentException("the spec " + from + " names no test command or report (build '" + spec.path("build").asText() + "')");
        }
        var pre = new StringBuilder();
        spec.path("pre_test").forEach(c -> pre.append(c.asText()).append(" && "));
        JsonNode toolchain = spec.has("toolchain") ? spec.get("toolchain") : swebench.repo(repo).isMissingNode() ? sweGym.toolchain(repo, version)
                : swebench.toolchain(repo, version);
        return Optional.of(new Resolved(pre + fill(command, tests, PatchPaths.of(testPatch == null ? "" : testPatch)), report, from, toolchain));
    }

    /**
     * The spec for a row that says itself how its tests run ({@code script}, from its
     * {@code eval_script}): SWE-bench's or SWE-Gym's table for the environment of {@code repo} at
     * {@code version}, the row for its commands and parser; the row alone where neither table knows them.
     */
    public Resolved resolve(SweBenchSpecs.RowScript script, String repo, String version, String testPatch) {
        return swebench.resolve(repo, version, testPatch, script).or(() -> sweGym.resolve(repo, version, testPatch, script)).orElseGet(script::alone);
    }

    private static JsonNode merged(JsonNode base, JsonNode over) {
        ObjectNode out = base.isObject() ? ((ObjectNode) base).deepCopy() : DatasetFile.JSON.createObjectNode();
        over.properties().forEach(e -> out.set(e.getKey(), e.getValue()));
        return out;
    }

    /**
     * {@code {test_classes}}: the tests' classes; {@code {tests}}: the ids, quoted;
     * {@code {gradle_tests}}: --tests per class; {@code {test_files}}: the test patch's files, quoted.
     */
    static String fill(String template, List<String> tests, Collection<String> testFiles) {
        var classes = new LinkedHashSet<String>();
        for (String t : tests) {
            classes.add(testClass(t));
        }
        return template.replace("{test_classes}", String.join(",", classes))
                .replace("{gradle_tests}", classes.stream().map(c -> "--tests " + c).collect(Collectors.joining(" ")))
                .replace("{tests}", tests.stream().map(RepoSpecs::quote).collect(Collectors.joining(" ")))
                .replace("{test_files}", testFiles.stream().sorted().map(RepoSpecs::quote).collect(Collectors.joining(" ")));
    }

    /**
     * The class of a JUnit test id, however spelled: {@code pkg.Class#m}, {@code pkg.Class.m},
     * {@code Class::m}; parameters dropped. An id whose last part starts with a capital letter is a
     * class already ({@code pkg.Class}, as Multi-SWE-bench lists Java tests): Java's naming
     * conventions tell a class from a method.
     */
    static String testClass(String id) {
        String t = id.contains("[") ? id.substring(0, id.indexOf('[')) : id;
        t = t.contains("(") ? t.substring(0, t.indexOf('(')) : t;
        int hash = Math.max(t.lastIndexOf('#'), t.lastIndexOf("::"));
        if (hash > 0) {
            return t.substring(0, hash);
        }
        int dot = t.lastIndexOf('.');
        return dot > 0 && !Character.isUpperCase(t.charAt(dot + 1)) ? t.substring(0, dot) : t;
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
