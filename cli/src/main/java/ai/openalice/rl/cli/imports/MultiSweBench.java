package ai.openalice.rl.cli.imports;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A Multi-SWE-bench row in SWE-bench's terms, its own fields kept. The row's schema is the
 * dataset's ({@code multi_swe_bench/harness/dataset.py}): {@code org}, {@code repo}, {@code number},
 * {@code base {label, ref, sha}}, {@code title}, {@code body}, {@code resolved_issues [{number,
 * title, body}]}, {@code fix_patch}, {@code test_patch}, and the tests as objects keyed by test id
 * ({@code f2p_tests}, {@code s2p_tests}, {@code n2p_tests}, {@code p2p_tests}).
 */
final class MultiSweBench {
    private MultiSweBench() {}

    /** The row with {@code instance_id}, {@code repo} as owner/name, {@code base_commit}, {@code patch}, {@code problem_statement} and the two test lists. */
    static ObjectNode asSweBench(ObjectNode row) throws DatasetFormat.Unmappable {
        ObjectNode out = row.deepCopy();
        String org = text(row, "org");
        String name = text(row, "repo");
        if (!name.contains("/")) {
            out.put("repo", org + "/" + name);
        }
        String number = text(row, "number");
        if (!row.hasNonNull("instance_id")) {
            out.put("instance_id", org + "__" + name.substring(name.indexOf('/') + 1) + "-" + number);
        }
        JsonNode sha = row.path("base").path("sha");
        if (!sha.isTextual() || sha.asText().isBlank()) {
            throw new DatasetFormat.Unmappable("base.sha", "required: the commit the pull request was based on");
        }
        out.put("base_commit", sha.asText());
        out.put("patch", text(row, "fix_patch"));
        out.put("problem_statement", problem(row));
        ArrayNode f2p = out.putArray("FAIL_TO_PASS");
        for (String field : new String[] {"f2p_tests", "s2p_tests", "n2p_tests"}) {
            keys(row, field, f2p);
        }
        keys(row, "p2p_tests", out.putArray("PASS_TO_PASS"));
        return out;
    }

    /** The issues the pull request resolves, each as its title and body; the pull request's own when it names none. */
    private static String problem(ObjectNode row) throws DatasetFormat.Unmappable {
        var text = new StringBuilder();
        for (JsonNode issue : row.path("resolved_issues")) {
            text.append(text.isEmpty() ? "" : "\n\n").append(issue.path("title").asText("")).append("\n\n").append(issue.path("body").asText(""));
        }
        if (text.toString().isBlank()) {
            text.setLength(0);
            text.append(row.path("title").asText("")).append("\n\n").append(row.path("body").asText(""));
        }
        if (text.toString().isBlank()) {
            throw new DatasetFormat.Unmappable("resolved_issues", "no issue text: neither resolved_issues nor title/body say what to fix");
        }
        return text.toString().strip();
    }

    private static void keys(ObjectNode row, String field, ArrayNode into) throws DatasetFormat.Unmappable {
        JsonNode tests = row.get(field);
        if (tests == null || tests.isNull()) {
            return;
        }
        if (!tests.isObject()) {
            throw new DatasetFormat.Unmappable(field, "must be an object keyed by test id, got " + tests.getNodeType().name().toLowerCase());
        }
        tests.fieldNames().forEachRemaining(into::add);
    }

    private static String text(ObjectNode row, String field) throws DatasetFormat.Unmappable {
        JsonNode v = row.get(field);
        if (v == null || v.isNull() || (!v.isTextual() && !v.isNumber()) || v.asText().isBlank()) {
            throw new DatasetFormat.Unmappable(field, "required");
        }
        return v.asText();
    }
}
