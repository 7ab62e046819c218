package ai.openalice.rl.bench;

import ai.openalice.rl.events.TestStatus;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.harness.Verdict;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The counting of {@link SweBenchVerifiedBench}: per repository, rows imported (and whether both
 * forms of the dataset gave the same task), instances with a mirror, Python environments built,
 * gold resolved, empty unresolved, published verdicts matched (resolved, and each listed test under
 * the official report's heading), seconds per verification; and every miss, named with its reason.
 */
final class SweBenchVerifiedTable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final JsonNode reports;
    private final Map<String, Repo> repos = new TreeMap<>();
    /** instance id + kind → the verdict line, the newest one kept. */
    private final Map<String, JsonNode> lines = new LinkedHashMap<>();
    private final Set<String> mirrored = new HashSet<>();
    /** instance id → why its mirror cannot give its workspace. */
    private final Map<String, String> incomplete = new TreeMap<>();
    private final List<String> refused = new ArrayList<>();

    private static final class Repo {
        int imported;
        int sameTask;
        int mirrored;
        int incomplete;
    }

    SweBenchVerifiedTable(JsonNode reports) {
        this.reports = reports;
    }

    void imported(String repo, boolean sameFromBothForms, String id) {
        Repo r = repos.computeIfAbsent(repo, k -> new Repo());
        r.imported++;
        if (sameFromBothForms) {
            r.sameTask++;
        } else {
            refused.add(id + ": the 13 published columns give another task than SWE-bench's build of the file");
        }
    }

    void refused(String repo, String why) {
        repos.computeIfAbsent(repo, k -> new Repo());
        refused.add(repo + ": row " + why);
    }

    void mirrored(Task t) {
        if (mirrored.add(t.instanceId())) {
            repos.get(t.repo()).mirrored++;
        }
    }

    /**
     * An instance whose mirror lacks a file its commit names (a snapshot brought without its largest
     * files): counted apart, with the reason, and not judged — a workspace cannot be made of it.
     */
    void incomplete(Task t, String why) {
        if (incomplete.put(t.instanceId(), why) == null) {
            repos.get(t.repo()).incomplete++;
        }
    }

    boolean isIncomplete(String id) {
        return incomplete.containsKey(id);
    }

    int mirroredCount() {
        return mirrored.size();
    }

    /** Whether this verification has a verdict already (an infrastructure error is not one: it runs again). */
    boolean done(String id, String kind) {
        JsonNode l = lines.get(id + " " + kind);
        return l != null && !l.path("status").asText().equals("infra_error");
    }

    void record(JsonNode line) {
        lines.put(line.get("instance_id").asText() + " " + line.get("kind").asText(), line);
    }

    /** A verdict as one line of results.jsonl. */
    static ObjectNode line(Task t, String kind, Verdict v, double secs) {
        ObjectNode o = JSON.createObjectNode().put("instance_id", t.instanceId()).put("repo", t.repo()).put("version", t.version()).put("kind", kind)
                .put("status", v.status().wire()).put("cause", v.cause() == null ? null : v.cause().wire()).put("reason", v.reason())
                .put("toolchain", v.toolchain()).put("seconds", Math.round(secs * 10) / 10.0);
        ObjectNode f2p = o.putObject("fail_to_pass");
        v.failToPass().forEach((k, s) -> f2p.put(k, s.wire()));
        ObjectNode p2p = o.putObject("pass_to_pass");
        v.passToPass().forEach((k, s) -> p2p.put(k, s.wire()));
        String log = v.log() == null ? "" : v.log();
        o.put("log_tail", log.substring(Math.max(0, log.length() - 1500)));
        return o;
    }

    /** The table and the misses, as Markdown. */
    String markdown() {
        var rows = new StringBuilder();
        var misses = new StringBuilder();
        int[] total = new int[13];
        double totalSecs = 0;
        for (var e : repos.entrySet()) {
            String repo = e.getKey();
            Repo r = e.getValue();
            int envOk = 0, envFailed = 0, gold = 0, goldRun = 0, empty = 0, emptyRun = 0, matched = 0, compared = 0, headings = 0, tests = 0, runs = 0;
            double secs = 0;
            var envs = new TreeMap<String, Boolean>();
            for (JsonNode l : lines.values()) {
                if (!l.get("repo").asText().equals(repo) || !mirrored.contains(l.get("instance_id").asText())
                        || incomplete.containsKey(l.get("instance_id").asText())) {
                    continue;
                }
                runs++;
                secs += l.path("seconds").asDouble();
                String id = l.get("instance_id").asText();
                boolean envBroken = "environment".equals(l.path("cause").asText()) && l.path("reason").asText().contains("environment could not be");
                envs.merge(l.path("version").asText(), !envBroken, Boolean::logicalAnd);
                boolean resolved = l.get("status").asText().equals("resolved");
                switch (l.get("kind").asText()) {
                    case "gold" -> {
                        goldRun++;
                        if (resolved) {
                            gold++;
                        } else {
                            misses.append("- gold not resolved: ").append(id).append(why(l)).append('\n');
                        }
                    }
                    case "empty" -> {
                        emptyRun++;
                        if (!resolved) {
                            empty++;
                        } else {
                            misses.append("- empty patch resolved: ").append(id).append('\n');
                        }
                    }
                    default -> {
                        JsonNode report = reports.path(id);
                        if (report.isMissingNode()) {
                            continue;
                        }
                        compared++;
                        boolean published = report.path("resolved").asBoolean();
                        int[] h = headings(l, report);
                        headings += h[0];
                        tests += h[1];
                        if (published == resolved) {
                            matched++;
                        } else {
                            misses.append("- published ").append(published ? "resolved" : "unresolved").append(", here ")
                                    .append(l.get("status").asText()).append(": ").append(id).append(why(l)).append('\n');
                        }
                    }
                }
            }
            for (boolean ok : envs.values()) {
                if (ok) {
                    envOk++;
                } else {
                    envFailed++;
                }
            }
            int[] row = {r.imported, r.sameTask, r.mirrored, envOk, envFailed, gold, goldRun, empty, emptyRun, matched, compared, runs, r.incomplete};
            for (int i = 0; i < row.length; i++) {
                total[i] += row[i];
            }
            totalSecs += secs;
            rows.append(String.format("| %s | %d | %d | %d | %d | %d of %d | %d of %d | %d of %d | %d of %d | %s | %s |%n", repo, r.imported, r.sameTask,
                    r.mirrored, r.incomplete, envOk, envOk + envFailed, gold, goldRun, empty, emptyRun, matched, compared, tests == 0 ? "–" : headings + " of " + tests,
                    runs == 0 ? "–" : String.format("%.0f", secs / runs)));
        }
        var md = new StringBuilder();
        md.append("SWE-bench Verified, judged here (").append(LocalDate.now()).append(")\n\n");
        md.append("| repository | rows imported | same task from both forms | with a mirror | mirror lacks a file | environments built | gold resolved"
                + " | empty unresolved | published verdict matched | tests under the published heading | s per verification |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        md.append(rows);
        md.append(String.format("| all | %d | %d | %d | %d | %d of %d | %d of %d | %d of %d | %d of %d | | %s |%n", total[0], total[1], total[2], total[12], total[3],
                total[3] + total[4], total[5], total[6], total[7], total[8], total[9], total[10], total[11] == 0 ? "–" : String.format("%.0f", totalSecs / total[11])));
        md.append("\nMisses\n\n").append(misses.isEmpty() ? "none\n" : misses);
        if (!incomplete.isEmpty()) {
            md.append("\nNot judged: the mirror lacks a file the instance's commit names\n\n");
            incomplete.forEach((id, why) -> md.append("- ").append(id).append(": ").append(why).append('\n'));
        }
        if (!refused.isEmpty()) {
            md.append("\nImport\n\n");
            refused.forEach(x -> md.append("- ").append(x).append('\n'));
        }
        return md.toString();
    }

    /** {tests under the same heading as the official report, tests the report lists}. */
    private static int[] headings(JsonNode line, JsonNode report) {
        int same = 0, all = 0;
        for (String list : List.of("FAIL_TO_PASS", "PASS_TO_PASS")) {
            JsonNode ours = line.path(list.equals("FAIL_TO_PASS") ? "fail_to_pass" : "pass_to_pass");
            JsonNode theirs = report.path("tests_status").path(list);
            for (String heading : List.of("success", "failure")) {
                for (JsonNode test : theirs.path(heading)) {
                    all++;
                    boolean passedHere = TestStatus.PASSED.wire().equals(ours.path(test.asText()).asText());
                    if (passedHere == heading.equals("success")) {
                        same++;
                    }
                }
            }
        }
        return new int[] {same, all};
    }

    private static String why(JsonNode l) {
        var bad = new ArrayList<String>();
        for (String list : List.of("fail_to_pass", "pass_to_pass")) {
            l.path(list).properties().forEach(t -> {
                if (!t.getValue().asText().equals("passed")) {
                    bad.add(t.getKey() + " " + t.getValue().asText());
                }
            });
        }
        String reason = l.path("reason").isTextual() ? " — " + l.get("status").asText() + ": " + l.get("reason").asText() : "";
        return reason + (bad.isEmpty() ? "" : " — " + bad.size() + " listed tests not passed: " + String.join(", ", bad.subList(0, Math.min(3, bad.size())))
                + (bad.size() > 3 ? ", …" : ""));
    }
}
