package ai.openalice.rl.cli.imports;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * How one dataset's rows become alice-rl tasks. Every field of the row is kept; the test lists
 * become JSON arrays under SWE-bench's names; {@code test_command} and {@code test_report} come
 * from the row when it has them, else from the repository spec table. Each format also knows the
 * container image its instances are published as (facts from each dataset's documentation and
 * harness), for {@code --workspace image}.
 */
public enum DatasetFormat {
    /** SWE-bench (full, Lite, Verified, Multilingual) and the datasets that share its schema (SWE-Gym, SWE-smith). */
    SWE_BENCH("FAIL_TO_PASS", "PASS_TO_PASS"),
    /** SWE-PolyBench: F2P and P2P as Python list literals, a language column, its own test command ({@link SwePolyBench}). */
    SWE_POLYBENCH("F2P", "P2P"),
    /**
     * Multi-SWE-bench: {@code org}, {@code repo} (the name alone), {@code number}, {@code base.sha},
     * {@code fix_patch}, the issue in {@code title}/{@code body}/{@code resolved_issues}, and the
     * tests as objects keyed by test id: {@code f2p_tests}, {@code s2p_tests} (skipped, then
     * passing) and {@code n2p_tests} (absent, then passing) must pass, {@code p2p_tests} must stay
     * passing.
     */
    MULTI_SWE_BENCH("FAIL_TO_PASS", "PASS_TO_PASS"),
    /**
     * SWE-rebench (and its V2): SWE-bench's schema plus {@code install_config} ({@code test_cmd},
     * {@code log_parser}) and {@code image_name}, the instance's published image.
     */
    SWE_REBENCH("FAIL_TO_PASS", "PASS_TO_PASS");

    private final String failToPass;
    private final String passToPass;

    DatasetFormat(String failToPass, String passToPass) {
        this.failToPass = failToPass;
        this.passToPass = passToPass;
    }

    /** By the name the command line takes; SWE-bench's variants are one format. */
    public static DatasetFormat of(String name) {
        return switch (name.toLowerCase()) {
            case "swe-bench", "swe-bench-lite", "swe-bench-verified", "swe-bench-multilingual", "swe-gym", "swe-smith" -> SWE_BENCH;
            case "swe-polybench" -> SWE_POLYBENCH;
            case "multi-swe-bench" -> MULTI_SWE_BENCH;
            case "swe-rebench" -> SWE_REBENCH;
            default -> throw new IllegalArgumentException("--from: '" + name + "' is not a dataset format (swe-bench, swe-bench-lite, swe-bench-verified,"
                    + " swe-bench-multilingual, swe-gym, swe-smith, swe-polybench, multi-swe-bench, swe-rebench)");
        };
    }

    /** A row the table cannot turn into a task: the field and why. */
    public static final class Unmappable extends Exception {
        public final String field;

        Unmappable(String field, String reason) {
            super(reason);
            this.field = field;
        }
    }

    /** The task for {@code row}. */
    public ObjectNode map(ObjectNode shipped, RepoSpecs specs) throws Unmappable {
        ObjectNode row = this == MULTI_SWE_BENCH ? MultiSweBench.asSweBench(shipped) : shipped;
        ObjectNode task = row.deepCopy();
        List<String> f2p = tests(row, failToPass);
        List<String> p2p = tests(row, passToPass);
        task.remove(List.of(failToPass, passToPass));
        task.set("FAIL_TO_PASS", array(f2p));
        task.set("PASS_TO_PASS", array(p2p));
        if (this == SWE_REBENCH || row.hasNonNull("install_config")) { // a row of any format that carries its own set-up
            SweRebench.fromInstallConfig(row, task);
        }
        if (this == SWE_POLYBENCH) {
            SwePolyBench.apply(row, task);
        }
        if (!hasText(task, "test_command") || !task.has("test_report")) {
            var all = new ArrayList<>(f2p);
            all.addAll(p2p);
            String repo = row.path("repo").asText(null);
            String version = row.hasNonNull("version") ? row.get("version").asText() : null;
            RepoSpecs.Resolved spec;
            try {
                String testPatch = row.path("test_patch").asText("");
                var script = SweBenchSpecs.script(row);
                spec = script.map(s -> specs.resolve(s, repo, version, testPatch))
                        .or(() -> specs.resolve(repo, version, row.path("language").asText(null), all, testPatch))
                        .orElseThrow(() -> new Unmappable("test_command", "the row has none, and the repository spec table has no entry for repo '" + repo
                                + "' at version '" + version + "'" + known(specs, repo)
                                + (row.has("language") ? " or for language '" + row.path("language").asText() + "'" : "") + " (add one with --specs)"));
            } catch (IllegalArgumentException e) {
                throw new Unmappable("test_command", "the row has none, and " + e.getMessage());
            }
            if (!hasText(task, "test_command")) {
                task.put("test_command", spec.testCommand());
            }
            if (!task.has("test_report")) {
                task.set("test_report", spec.testReport());
            }
            if (!row.has("toolchain") && spec.toolchain() != null) {
                task.set("toolchain", SweBenchSpecs.withNetwork(SweBenchSpecs.withSetupCommit(spec.toolchain(),
                        row.path("environment_setup_commit").asText(null)), repo));
            }
            task.put("spec", spec.from());
        }
        return task;
    }

    /**
     * The container image the dataset publishes for the instance {@code task} came from, with its
     * working directory (null: the image's own): SWE-bench's harness names instance images
     * {@code swebench/sweb.eval.x86_64.<instance_id>} lower-cased with {@code __} spelled
     * {@code _1776_}, repository at /testbed; SWE-PolyBench's README pulls
     * {@code ghcr.io/timesler/swe-polybench.eval.x86_64.<instance_id>:v1.1}; Multi-SWE-bench's
     * harness names {@code mswebench/<org>_m_<repo>:pr-<number>} with the repository at
     * /home/&lt;repo&gt;; SWE-rebench rows name theirs in {@code image_name} (the image's own
     * workdir, /&lt;repo name&gt;).
     */
    public ObjectNode image(ObjectNode task) {
        String id = task.path("instance_id").asText();
        ObjectNode ws = DatasetFile.JSON.createObjectNode().put("type", "image");
        switch (this) {
            case SWE_BENCH -> ws.put("image", "swebench/sweb.eval.x86_64." + id.toLowerCase().replace("__", "_1776_") + ":latest").put("workdir", "/testbed");
            case SWE_POLYBENCH -> ws.put("image", "ghcr.io/timesler/swe-polybench.eval.x86_64." + id.toLowerCase() + ":v1.1");
            case SWE_REBENCH -> ws.put("image", task.path("image_name").asText(""));
            case MULTI_SWE_BENCH -> {
                String name = task.path("repo").asText();
                name = name.substring(name.indexOf('/') + 1);
                ws.put("image", ("mswebench/" + task.path("org").asText() + "_m_" + name).toLowerCase() + ":pr-" + task.path("number").asText())
                        .put("workdir", "/home/" + name);
            }
        }
        return ws;
    }

    /** The versions of {@code repo} SWE-bench's (or SWE-Gym's) table knows, for a refusal's message; empty when none. */
    private static String known(RepoSpecs specs, String repo) {
        var table = specs.harnessTables().stream().filter(t -> !t.versions(repo).isEmpty()).findFirst();
        if (table.isEmpty()) {
            return "";
        }
        var versions = table.get().versions(repo);
        return " (" + table.get().name() + "'s table knows " + (versions.size() <= 12 ? String.join(", ", versions) : versions.size() + " versions of it, "
                + String.join(", ", versions.subList(0, 6)) + " … " + versions.get(versions.size() - 1)) + ")";
    }

    private static List<String> tests(ObjectNode row, String field) throws Unmappable {
        try {
            return TestLists.of(row.get(field));
        } catch (IllegalArgumentException e) {
            throw new Unmappable(field, e.getMessage());
        }
    }

    private static boolean hasText(ObjectNode row, String field) {
        return row.hasNonNull(field) && !row.get(field).asText().isBlank();
    }

    private static ArrayNode array(List<String> ids) {
        ArrayNode a = DatasetFile.JSON.createArrayNode();
        ids.forEach(a::add);
        return a;
    }
}
