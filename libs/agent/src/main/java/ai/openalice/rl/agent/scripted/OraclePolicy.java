package ai.openalice.rl.agent.scripted;

import ai.openalice.rl.agent.format.ToolCallFormat;
import ai.openalice.rl.model.tokenizer.Tokenizer;
import ai.openalice.rl.policy.Completion;
import ai.openalice.rl.policy.CompletionRequest;
import ai.openalice.rl.policy.Policy;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Replays a gold patch as an agent would: one {@code file_editor} call per hunk ({@code str_replace}
 * of the hunk's old lines with its new ones, {@code create} for a new file, {@code bash rm} for a
 * deleted one), then {@code submit}. Its completions are deterministic (log-prob 0) and end with
 * the tokenizer's {@code <|end|>} when it has one. For tests, fixtures and warm-start data.
 */
public final class OraclePolicy implements Policy {
    private final List<String> turns;
    private final List<Boolean> fixes;
    private final Tokenizer tokenizer;
    private int next;

    public OraclePolicy(String goldPatch, Tokenizer tokenizer, ToolCallFormat format) {
        this.tokenizer = tokenizer;
        this.turns = new ArrayList<>();
        this.fixes = new ArrayList<>();
        for (Call c : calls(goldPatch)) {
            turns.add("think: apply the fix\n" + format.render(c.tool, c.args));
            fixes.add(true);
        }
        turns.add("think: done\n" + format.render("submit", JsonNodeFactory.instance.objectNode()));
        fixes.add(false);
    }

    private OraclePolicy(List<String> turns, List<Boolean> fixes, Tokenizer tokenizer) {
        this.turns = List.copyOf(turns);
        this.fixes = List.copyOf(fixes);
        this.tokenizer = tokenizer;
    }

    /**
     * The same episode without the turns that change the code: it looks, runs the tests and submits
     * the bug unfixed. A controlled failure, for a partly successful scripted policy (benchmarks of
     * the loop without a competent model).
     */
    public OraclePolicy withoutFix() {
        var keptTurns = new ArrayList<String>();
        var keptFixes = new ArrayList<Boolean>();
        for (int i = 0; i < turns.size(); i++) {
            if (!fixes.get(i)) {
                keptTurns.add(turns.get(i));
                keptFixes.add(false);
            }
        }
        return new OraclePolicy(keptTurns, keptFixes, tokenizer);
    }

    /**
     * Replays a task's own oracle trajectory ({@code [{"tool": ..., "args": {...}}, ...]}, e.g.
     * tiny-swe's: look, fix, run the tests, submit) instead of the bare patch.
     */
    public static OraclePolicy replaying(JsonNode trajectory, Tokenizer tokenizer, ToolCallFormat format) {
        if (trajectory == null || !trajectory.isArray() || trajectory.isEmpty()) {
            throw new IllegalArgumentException("an oracle trajectory is a non-empty array of {tool, args}");
        }
        var turns = new ArrayList<String>();
        var fixes = new ArrayList<Boolean>();
        for (var step : trajectory) {
            String tool = step.path("tool").asText("");
            if (tool.isEmpty() || !step.path("args").isObject()) {
                throw new IllegalArgumentException("oracle trajectory step without tool or args: " + step);
            }
            String why = switch (tool) {
                case "submit" -> "done";
                case "bash" -> "run the tests";
                default -> step.path("args").path("command").asText("").equals("view") ? "look at the code" : "fix the bug";
            };
            turns.add("think: " + why + "\n" + format.render(tool, (ObjectNode) step.get("args")));
            fixes.add(why.equals("fix the bug"));
        }
        return new OraclePolicy(turns, fixes, tokenizer);
    }

    private record Call(String tool, ObjectNode args) {}

    /** The calls that turn the base into the patched tree. */
    static List<Call> calls(String patch) {
        var out = new ArrayList<Call>();
        String[] lines = patch.split("\n", -1);
        String oldPath = null;
        String newPath = null;
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i];
            if (l.startsWith("--- ")) {
                oldPath = path(l.substring(4));
            } else if (l.startsWith("+++ ")) {
                newPath = path(l.substring(4));
                if (newPath == null && oldPath != null) {
                    out.add(new Call("bash", JsonNodeFactory.instance.objectNode().put("command", "rm -f -- '" + oldPath.replace("'", "'\\''") + "'")));
                }
            } else if (l.startsWith("@@") && newPath != null) {
                var oldText = new StringBuilder();
                var newText = new StringBuilder();
                int j = i + 1;
                while (j < lines.length && !lines[j].startsWith("@@") && !lines[j].startsWith("diff --git") && !lines[j].startsWith("--- ")) {
                    String h = lines[j];
                    if (h.startsWith(" ") || h.isEmpty()) {
                        String body = h.isEmpty() ? "" : h.substring(1);
                        oldText.append(body).append('\n');
                        newText.append(body).append('\n');
                    } else if (h.startsWith("-")) {
                        oldText.append(h.substring(1)).append('\n');
                    } else if (h.startsWith("+")) {
                        newText.append(h.substring(1)).append('\n');
                    }
                    j++;
                }
                trimTrailingEmpty(oldText, newText, j == lines.length);
                ObjectNode args = JsonNodeFactory.instance.objectNode().put("path", newPath);
                if (oldPath == null) {
                    args.put("command", "create").put("file_text", newText.toString());
                } else {
                    args.put("command", "str_replace").put("old_str", oldText.toString()).put("new_str", newText.toString());
                }
                out.add(new Call("file_editor", args));
                i = j - 1;
            }
        }
        return out;
    }

    /** The patch's final newline splits into an empty last "line" that is not part of any hunk. */
    private static void trimTrailingEmpty(StringBuilder a, StringBuilder b, boolean atEnd) {
        if (atEnd && a.toString().endsWith("\n\n") && b.toString().endsWith("\n\n")) {
            a.setLength(a.length() - 1);
            b.setLength(b.length() - 1);
        }
    }

    private static String path(String header) {
        String p = header.split("\t")[0].strip();
        if (p.equals("/dev/null")) {
            return null;
        }
        return p.startsWith("a/") || p.startsWith("b/") ? p.substring(2) : p;
    }

    @Override
    public String name() {
        return "oracle";
    }

    @Override
    public Completion complete(CompletionRequest request) {
        String text = turns.get(Math.min(next++, turns.size() - 1));
        int[] ids = tokenizer.encode(text);
        int[] ends = tokenizer.endTokens();
        int end = tokenizer.special("<|end|>").orElse(ends.length > 0 ? ends[0] : -1);
        if (end >= 0) {
            ids = Arrays.copyOf(ids, ids.length + 1);
            ids[ids.length - 1] = end;
        }
        return new Completion(ids, new double[ids.length], text, Completion.FinishReason.STOP, 0);
    }
}
