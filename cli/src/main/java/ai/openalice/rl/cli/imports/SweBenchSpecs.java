package ai.openalice.rl.cli.imports;

import ai.openalice.rl.harness.reports.SweBenchLogParsers;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SWE-bench's repository spec table ({@code swebench-specs.json}, facts carried over from the
 * official package by {@code dev/python/swebench_specs_table.py}): how SWE-bench's harness runs a
 * repository's tests at a version — the command its eval script runs them with, the log parser it
 * reads them with, the JDK its image has. The command is built here as SWE-bench's harness builds
 * it, under {@code set -uxo pipefail} as its eval scripts run: for a Python repository, the conda
 * environment activated where there is one (SWE-bench's images), the spec's {@code eval_commands}, its {@code install} (again, after the patch) and {@code test_cmd}
 * followed by the test patch's files (its {@code get_test_directives}); for the others, the spec's
 * {@code build} steps and then each {@code test_cmd}. What the eval script does besides — {@code cd}, resetting and applying the test patch, the output markers — the harness does its
 * own way. {@code SweBenchSpecsTest} checks every entry against the official package.
 */
public final class SweBenchSpecs {
    /** The markers SWE-bench's eval scripts put around the test commands (its START_TEST_OUTPUT, END_TEST_OUTPUT). */
    static final String START_TEST_OUTPUT = ">>>>> Start Test Output";
    static final String END_TEST_OUTPUT = ">>>>> End Test Output";
    /** How swebench's get_test_directives finds a diff's files. */
    private static final Pattern DIFF_FILE = Pattern.compile("diff --git a/.* b/(.*)", Pattern.UNIX_LINES);
    /** How SWE-Gym's fork finds a mypy test patch's cases: {@code [case NAME]} anywhere in it. */
    private static final Pattern MYPY_CASE = Pattern.compile("\\[case ([^\\]]+)\\]");
    private static final Pattern CONDA_ACTIVATE = Pattern.compile("\\s*conda activate (\\S+)\\s*");
    /** Where a SWE-bench 5 eval script has looked at the base (its re-install follows). */
    private static final Pattern BASE_DIFF = Pattern.compile("git (-c \\S+ )*diff [0-9a-f]{7,40}\\s*");
    private final JsonNode table;

    private SweBenchSpecs(JsonNode table) {
        this.table = table;
    }

    public static SweBenchSpecs bundled() throws IOException {
        return read("/swebench-specs.json");
    }

    /**
     * SWE-Gym's table ({@code swegym-specs.json}): the repositories its fork of SWE-bench's harness
     * adds, in the same format, keyed in lower case as the fork looks them up.
     */
    public static SweBenchSpecs sweGym() throws IOException {
        return read("/swegym-specs.json");
    }

    private static SweBenchSpecs read(String resource) throws IOException {
        try (InputStream in = SweBenchSpecs.class.getResourceAsStream(resource)) {
            return new SweBenchSpecs(DatasetFile.JSON.readTree(in));
        }
    }

    /** Whose table this is, as messages name it: SWE-bench or SWE-Gym. */
    String name() {
        return table.path("name").asText("SWE-bench");
    }

    /** The whole table, as the resource holds it. */
    JsonNode table() {
        return table;
    }

    /** The repository's entry (its versions, parser and harness); missing when this table has none. */
    public JsonNode repo(String repo) {
        String key = repo == null ? "" : table.path("repo_keys").asText().equals("lower-case") ? repo.toLowerCase(Locale.ROOT) : repo;
        return table.path("repos").path(key);
    }

    /** The versions SWE-bench knows of {@code repo}, in its table's order. */
    public List<String> versions(String repo) {
        var out = new ArrayList<String>();
        repo(repo).path("versions").fieldNames().forEachRemaining(out::add);
        return out;
    }

    /**
     * What runs {@code repo}'s tests at {@code version} for a task with {@code testPatch}; empty when
     * SWE-bench's table has no such repository and version.
     *
     * @throws IllegalArgumentException when it has them but SWE-bench could not run them either (no
     *     test command) or alice-rl cannot read their log (no parser of SWE-bench's)
     */
    public Optional<RepoSpecs.Resolved> resolve(String repo, String version, String testPatch) {
        return resolve(repo, version, testPatch, null);
    }

    /**
     * As {@link #resolve(String, String, String)}, for a row that says itself how its tests run
     * ({@code script}, null: it does not): the table still gives the environment — the Python
     * version and packages, the JDK, the commands its image runs first — and the row gives its
     * re-install, test commands and parser, which take the place of the table's.
     */
    public Optional<RepoSpecs.Resolved> resolve(String repo, String version, String testPatch, RowScript script) {
        JsonNode r = repo(repo);
        JsonNode spec = r.path("versions").path(version == null ? "" : version);
        if (spec.isMissingNode()) {
            return Optional.empty();
        }
        String where = name() + "'s spec of " + repo + " " + version;
        String from = table.path("origin").asText("swebench") + ":" + repo + "@" + version;
        if (script != null) {
            var lines = new ArrayList<String>();
            if (r.path("harness").asText().equals("python")) {
                lines.add("set -uxo pipefail");
                lines.add(condaActivation(script.condaEnv() == null ? "testbed" : script.condaEnv()));
                spec.path("eval_commands").forEach(c -> lines.add(c.asText()));
                lines.addAll(script.install());
                lines.addAll(script.test());
            } else {
                lines.add(script.command());
            }
            return Optional.of(new RepoSpecs.Resolved(String.join("\n", lines), script.report(), "row:eval_script+" + from, toolchain(repo, version)));
        }
        if (!spec.has("test_cmd")) {
            throw new IllegalArgumentException(where + " names no test command (" + name() + " cannot evaluate it either): give the row a test_command and "
                    + "test_report, or add the repository to a table of your own with --specs");
        }
        String function = r.path("swebench_parser").asText(null);
        String parser = SweBenchLogParsers.forFunction(function);
        if (parser == null) {
            throw new IllegalArgumentException(where + ": " + name() + " reads its tests' log with " + (function == null ? "no parser" : function)
                    + ", which alice-rl has no parser for: give the row a test_report, or add the repository to a table of your own with --specs");
        }
        var lines = new ArrayList<String>();
        lines.add("set -uxo pipefail");
        if (r.path("harness").asText().equals("python")) {
            lines.add(condaActivation("testbed"));
            spec.path("eval_commands").forEach(c -> lines.add(c.asText()));
            if (spec.hasNonNull("install")) {
                lines.add(spec.get("install").asText()); // run again after the patch, as the eval script does
            }
            lines.add(testCommand(spec.get("test_cmd").asText(), testPatch, r.path("test_directives").asText("files")));
        } else {
            spec.path("build").forEach(c -> lines.add(c.asText()));
            JsonNode cmd = spec.get("test_cmd");
            if (cmd.isArray()) {
                cmd.forEach(c -> lines.add(c.asText()));
            } else {
                lines.add(cmd.asText());
            }
        }
        ObjectNode report = DatasetFile.JSON.createObjectNode().put("format", "log").put("parser", parser);
        return Optional.of(new RepoSpecs.Resolved(String.join("\n", lines), report, from, toolchain(repo, version)));
    }

    /**
     * A Python spec's {@code test_cmd} followed by what the test patch names: its test files
     * ({@code files}, {@code modules}: {@link #directives}) or, for mypy in SWE-Gym's fork
     * ({@code mypy-cases}), the {@code [case NAME]} names of its data files joined by {@code or}, in
     * double quotes, for pytest's {@code -k}.
     */
    private String testCommand(String testCmd, String testPatch, String kind) {
        var command = new StringBuilder(testCmd);
        if (kind.equals("mypy-cases")) {
            var cases = new ArrayList<String>();
            Matcher m = MYPY_CASE.matcher(testPatch == null ? "" : testPatch);
            while (m.find()) {
                cases.add(m.group(1));
            }
            return command.append(" \"").append(String.join(" or ", cases)).append('"').toString();
        }
        for (String d : directives(testPatch, kind)) {
            command.append(' ').append(d);
        }
        return command.toString();
    }

    /**
     * What a row of SWE-bench 5's datasets says of how its tests run, read from its
     * {@code eval_script} (SWE-bench's harness writes them all alike): the conda environment it
     * activates, its re-install of the patched project (the lines between its diff of the base and
     * its checkout of the test files, activations left out), its tests (the lines between its start
     * and end markers) and its {@code log_parser}, a name of swebench's parser registry.
     */
    public record RowScript(String condaEnv, List<String> install, List<String> test, String parser) {
        /** The row's commands alone, under {@code set -uxo pipefail} as its script runs them, in the environment it activates. */
        String command() {
            var lines = new ArrayList<String>();
            lines.add("set -uxo pipefail");
            if (condaEnv != null) {
                lines.add(condaActivation(condaEnv));
            }
            lines.addAll(install);
            lines.addAll(test);
            return String.join("\n", lines);
        }

        ObjectNode report() {
            return DatasetFile.JSON.createObjectNode().put("format", "log").put("parser", SweBenchLogParsers.forFunction(parser));
        }

        /** The row's own test command and report, where no table knows its repository and version. */
        RepoSpecs.Resolved alone() {
            return new RepoSpecs.Resolved(command(), report(), "row:eval_script", null);
        }
    }

    /**
     * The row's {@link RowScript}; empty when it carries no {@code eval_script}.
     *
     * @throws IllegalArgumentException when the script has no markers or alice-rl has no parser of
     *     the row's
     */
    public static Optional<RowScript> script(JsonNode row) {
        String script = row.path("eval_script").asText("");
        if (script.isBlank()) {
            return Optional.empty();
        }
        String env = null;
        var install = new ArrayList<String>();
        var test = new ArrayList<String>();
        boolean afterDiff = false;
        boolean checkedOut = false;
        boolean inside = false;
        boolean ended = false;
        for (String line : script.split("\n")) {
            if (line.contains(END_TEST_OUTPUT)) {
                ended = inside;
                break;
            }
            Matcher conda = CONDA_ACTIVATE.matcher(line);
            if (inside) {
                test.add(line);
            } else if (conda.matches()) {
                env = env == null ? conda.group(1) : env;
            } else if (BASE_DIFF.matcher(line).matches()) {
                afterDiff = true;
            } else if (line.startsWith("git checkout ") || line.startsWith("git apply ")) {
                checkedOut |= afterDiff;
            } else if (afterDiff && !checkedOut && !line.isBlank() && !line.strip().equals("source /opt/miniconda3/bin/activate")) {
                install.add(line);
            }
            inside |= line.contains(START_TEST_OUTPUT);
        }
        if (!ended) {
            throw new IllegalArgumentException("the row's eval_script has no '" + START_TEST_OUTPUT + "' … '" + END_TEST_OUTPUT + "' section to take its test command from");
        }
        String function = row.path("log_parser").asText(null);
        if (SweBenchLogParsers.forFunction(function) == null) {
            throw new IllegalArgumentException("the row's log_parser " + (function == null ? "is missing" : "'" + function + "' is not one alice-rl has")
                    + ": give the row a test_report");
        }
        return Optional.of(new RowScript(env, List.copyOf(install), List.copyOf(test), function));
    }

    /**
     * SWE-bench's images keep the tests' Python in the conda environment {@code env}, which their
     * eval scripts activate: activated where there is one (a task run in its dataset image),
     * skipped elsewhere (a local sandbox, where alice-rl's own environment is on {@code PATH}).
     */
    static String condaActivation(String env) {
        return "[ ! -f /opt/miniconda3/bin/activate ] || { source /opt/miniconda3/bin/activate && conda activate " + env + "; }";
    }

    /**
     * What SWE-bench's image of the version has, as a task's toolchain: its JDK
     * ({@code docker_specs.java_version}) or its Python environment (SWE-bench's {@code python},
     * {@code packages}, {@code pip_packages}, {@code pre_install} and {@code install}, which
     * alice-rl builds with pip); null for neither.
     */
    public JsonNode toolchain(String repo, String version) {
        return toolchain(repo(repo).path("versions").path(version == null ? "" : version), repo(repo));
    }

    /**
     * A day before SWE-bench's per-instance images, which its harness pulls, were built: they hold
     * Pygments 2.18, not 2.19.0 of 2025-01-05 14:11 UTC (sphinx 5.0's highlighting tests pass in the
     * published run and fail with 2.19's whitespace tokens), and they were on Docker Hub by 2025-02-04
     * (SWE-bench issue 311). Environments resolve PyPI as it was then, not as it is today (docutils
     * 0.22 of 2025-07 broke sphinx 3.x, which the published run resolves).
     */
    static final String PACKAGES_AS_OF = "2025-01-05";

    /**
     * {@code repo}'s entry says where a spec whose packages are {@code requirements.txt} or
     * {@code environment.yml} finds that file (SWE-bench's paths of the repository).
     */
    private static JsonNode toolchain(JsonNode spec, JsonNode repo) {
        String java = spec.path("docker_specs").path("java_version").asText(null);
        if (java != null) {
            return DatasetFile.JSON.createObjectNode().put("java", java);
        }
        if (!spec.hasNonNull("python")) {
            return null;
        }
        ObjectNode python = DatasetFile.JSON.createObjectNode().put("version", spec.get("python").asText());
        for (String f : List.of("packages", "pip_packages", "pre_install", "install")) {
            if (spec.hasNonNull(f)) {
                python.set(f, spec.get(f).deepCopy());
            }
        }
        python.put("packages_as_of", PACKAGES_AS_OF);
        String packages = spec.path("packages").asText();
        if (packages.equals("requirements.txt") && repo.path("requirements_paths").isArray()) {
            python.set("requirements", repo.get("requirements_paths").deepCopy());
        }
        if (packages.equals("environment.yml") && repo.path("env_yml_paths").isArray()) {
            python.set("env_yml", repo.get("env_yml_paths").deepCopy());
        }
        ObjectNode toolchain = DatasetFile.JSON.createObjectNode();
        toolchain.set("python", python);
        return toolchain;
    }

    /** alice-rl's table of what repositories' test suites need of a network (sandbox-network.json). */
    private static final JsonNode NETWORK;

    static {
        try (InputStream in = SweBenchSpecs.class.getResourceAsStream("/sandbox-network.json")) {
            NETWORK = DatasetFile.JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code toolchain} with what {@code repo}'s tests need of a network (its {@code unroutable}
     * networks and {@code stand_ins}, from sandbox-network.json); unchanged for a repository the table does not name.
     */
    static JsonNode withNetwork(JsonNode toolchain, String repo) {
        JsonNode entry = NETWORK.path("repos").path(repo == null ? "" : repo);
        if (!entry.isObject()) {
            return toolchain;
        }
        ObjectNode out = toolchain == null || !toolchain.isObject() ? DatasetFile.JSON.createObjectNode() : (ObjectNode) toolchain.deepCopy();
        for (String f : List.of("unroutable", "stand_ins")) {
            if (entry.has(f)) {
                out.set(f, entry.get(f).deepCopy());
            }
        }
        return out;
    }

    /**
     * {@code toolchain} for a row whose environment files SWE-bench reads at its
     * {@code environment_setup_commit}: that commit, as {@code setup_commit}, where the spec's
     * packages are a requirements or environment file (one environment per such commit, as
     * SWE-bench builds one image per version); unchanged otherwise.
     */
    static JsonNode withSetupCommit(JsonNode toolchain, String setupCommit) {
        JsonNode python = toolchain == null ? null : toolchain.path("python");
        if (python == null || !python.isObject() || setupCommit == null || setupCommit.isBlank()
                || !List.of("requirements.txt", "environment.yml").contains(python.path("packages").asText())) {
            return toolchain;
        }
        ObjectNode out = toolchain.deepCopy();
        ((ObjectNode) out.get("python")).put("setup_commit", setupCommit);
        return out;
    }

    /**
     * SWE-bench's test directives of a test patch: the files of its {@code diff --git} lines in their
     * order, less those ending with one of its non-test extensions; with {@code modules}, each as a
     * test module ({@code tests/a/b.py} → {@code a.b}), as django's runner takes them.
     */
    List<String> directives(String testPatch, String kind) {
        var skip = new ArrayList<String>();
        table.path("non_test_exts").forEach(e -> skip.add(e.asText()));
        var out = new ArrayList<String>();
        Matcher m = DIFF_FILE.matcher(testPatch == null ? "" : testPatch);
        while (m.find()) {
            String d = m.group(1);
            if (skip.stream().anyMatch(d::endsWith)) {
                continue;
            }
            if (kind.equals("modules")) {
                d = d.endsWith(".py") ? d.substring(0, d.length() - 3) : d;
                d = d.startsWith("tests/") ? d.substring("tests/".length()) : d;
                d = d.replace('/', '.');
            }
            out.add(d);
        }
        return out;
    }
}
