package ai.openalice.rl.prm;

import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.harness.PatchPaths;
import ai.openalice.rl.harness.TestFiles;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What the rubric's checks read from one episode: the tools called, the files viewed and edited,
 * the commands run and their outcomes, the final patch, budgets. Computed once per episode.
 */
public record EpisodeFacts(
        List<Call> calls, Set<String> viewed, Set<String> edited, Set<String> patchFiles, int patchChangedLines, List<String> removedDefinitions,
        int unparsable, int undos, int turns, int maxSteps, long completionTokens, Termination termination) {

    /** One tool call: its tool, its main argument (command or path), whether it failed, and its turn. */
    public record Call(String tool, String subject, boolean failed, int turn) {}

    public static EpisodeFacts of(Trajectory t, String patch, int maxSteps, Termination termination) {
        var calls = new ArrayList<Call>();
        var viewed = new LinkedHashSet<String>();
        var edited = new LinkedHashSet<String>();
        int unparsable = 0;
        int undos = 0;
        long tokens = 0;
        for (Turn turn : t.turns()) {
            tokens += turn.completionTokenIds().size();
            var a = turn.action();
            if (a == null || a.parseError() != null || a.tool().isEmpty()) {
                unparsable++;
                continue;
            }
            boolean failed = turn.observation().startsWith("[exit code ") && !turn.observation().startsWith("[exit code 0]")
                    || turn.observation().startsWith("[the command timed out") || turn.observation().startsWith("file_editor:");
            String subject = switch (a.tool()) {
                case "bash" -> a.args().path("command").asText("");
                case "file_editor" -> normalise(a.args().path("path").asText(""));
                case "search" -> a.args().path("pattern").asText("");
                default -> "";
            };
            calls.add(new Call(a.tool(), subject, failed, turn.index()));
            if (a.tool().equals("file_editor")) {
                String command = a.args().path("command").asText("");
                if (command.equals("view")) {
                    viewed.add(subject);
                } else if (command.equals("undo_edit")) {
                    undos++;
                } else if (!failed) {
                    edited.add(subject);
                }
            }
        }
        var patchFiles = PatchPaths.of(patch);
        int changed = PatchPaths.changedLines(patch);
        var removed = new ArrayList<String>();
        for (String line : patch.split("\n")) {
            if (PatchPaths.isRemoved(line)) {
                String def = definition(line.substring(1));
                if (def != null) {
                    removed.add(def);
                }
            }
        }
        // a definition removed and added back (an edited body) is not a deletion
        for (String line : patch.split("\n")) {
            if (PatchPaths.isAdded(line)) {
                removed.remove(definition(line.substring(1)));
            }
        }
        return new EpisodeFacts(List.copyOf(calls), Set.copyOf(viewed), Set.copyOf(edited), Set.copyOf(patchFiles), changed, List.copyOf(removed),
                unparsable, undos, t.turns().size(), maxSteps, tokens, termination);
    }

    /** "def name" / "class Name" / a Java method or type declaration, or null. */
    static String definition(String line) {
        String s = line.strip();
        var py = Pattern.compile("^(def|class)\\s+(\\w+)").matcher(s);
        if (py.find()) {
            return py.group(1) + " " + py.group(2);
        }
        var method = Pattern.compile("^(public|protected|private|static|final|\\s)*[\\w<>\\[\\],\\s]+\\s+(\\w+)\\s*\\([^;]*\\)\\s*(throws [\\w.,\\s]+)?\\{\\s*$")
                .matcher(s);
        return method.find() ? "method " + method.group(2) : null;
    }

    static String normalise(String path) {
        String p = path.strip();
        if (p.startsWith("/workspace/")) {
            p = p.substring("/workspace/".length());
        }
        while (p.startsWith("./")) {
            p = p.substring(2);
        }
        return p;
    }

    /** Patch files that are tests or test configuration. */
    public Set<String> editedTests() {
        var out = new LinkedHashSet<String>();
        for (String f : patchFiles) {
            if (TestFiles.isProtected(f)) {
                out.add(f);
            }
        }
        return out;
    }
}
