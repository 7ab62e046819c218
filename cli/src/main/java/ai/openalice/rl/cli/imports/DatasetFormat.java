package ai.openalice.rl.cli.imports;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * How one dataset's rows become alice-rl tasks. Every field of the row is kept; the test lists
 * become JSON arrays under SWE-bench's names; {@code test_command} and {@code test_report} come
 * from the row when it has them, else from the repository spec table.
 */
public enum DatasetFormat {
    /** SWE-bench (full, Lite, Verified, Multilingual) and the datasets that share its schema (SWE-Gym, SWE-smith). */
    SWE_BENCH("FAIL_TO_PASS", "PASS_TO_PASS"),
    /** SWE-PolyBench: F2P and P2P as Python list literals, a language column. */
    SWE_POLYBENCH("F2P", "P2P");

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
            default -> throw new IllegalArgumentException("--from: '" + name + "' is not a dataset format (swe-bench, swe-bench-lite, swe-bench-verified,"
                    + " swe-bench-multilingual, swe-gym, swe-smith, swe-polybench)");
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
    public ObjectNode map(ObjectNode row, RepoSpecs specs) throws Unmappable {
        ObjectNode task = row.deepCopy();
        List<String> f2p = tests(row, failToPass);
        List<String> p2p = tests(row, passToPass);
        task.remove(List.of(failToPass, passToPass));
        task.set("FAIL_TO_PASS", array(f2p));
        task.set("PASS_TO_PASS", array(p2p));
        if (!hasText(row, "test_command") || !row.has("test_report")) {
            var all = new ArrayList<>(f2p);
            all.addAll(p2p);
            String repo = row.path("repo").asText(null);
            String version = row.hasNonNull("version") ? row.get("version").asText() : null;
            var spec = specs.resolve(repo, version, row.path("language").asText(null), all)
                    .orElseThrow(() -> new Unmappable("test_command", "the row has none, and the repository spec table has no entry for repo '" + repo
                            + "'" + (row.has("language") ? " or language '" + row.path("language").asText() + "'" : "") + " (add one with --specs)"));
            if (!hasText(row, "test_command")) {
                task.put("test_command", spec.testCommand());
            }
            if (!row.has("test_report")) {
                task.set("test_report", spec.testReport());
            }
            if (!row.has("toolchain") && spec.toolchain() != null) {
                task.set("toolchain", spec.toolchain());
            }
            task.put("spec", spec.from());
        }
        return task;
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
