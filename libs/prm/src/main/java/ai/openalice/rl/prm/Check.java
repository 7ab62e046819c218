package ai.openalice.rl.prm;

import ai.openalice.rl.events.Termination;
import java.util.HashMap;
import java.util.HashSet;
import java.util.regex.Pattern;

/**
 * A rubric check: a score q ∈ [0, 1] for one episode, from its facts and the privileged task
 * information. The four built-in criteria and the primitives publisher rubrics are written in.
 */
public sealed interface Check {

    /** q and a short, human-readable reason. */
    record Score(double q, String detail) {
        public Score {
            if (!(q >= 0 && q <= 1)) {
                throw new IllegalArgumentException("a check scored " + q + ", outside [0, 1]");
            }
        }
    }

    Score score(EpisodeFacts f, Privileged p);

    /** The agent viewed and edited the files the fix is in (the gold patch's files). */
    record Localisation() implements Check {
        public Score score(EpisodeFacts f, Privileged p) {
            if (p.goldFiles().isEmpty()) {
                return new Score(1, "no gold files to find");
            }
            var touched = new HashSet<>(f.viewed());
            touched.addAll(f.edited());
            long found = p.goldFiles().stream().filter(touched::contains).count();
            long inPatch = p.goldFiles().stream().filter(f.patchFiles()::contains).count();
            double q = 0.5 * found / p.goldFiles().size() + 0.5 * inPatch / p.goldFiles().size();
            return new Score(q, found + "/" + p.goldFiles().size() + " gold files viewed or edited, " + inPatch + " in the patch");
        }
    }

    /**
     * Four quarters: no test files edited; the diff confined to the gold files; its size within
     * 3× the gold diff (+4 lines); no definition deleted.
     */
    record EditConstraints() implements Check {
        public Score score(EpisodeFacts f, Privileged p) {
            boolean noTests = f.editedTests().isEmpty();
            boolean confined = p.goldFiles().isEmpty() || p.goldFiles().containsAll(f.patchFiles());
            boolean small = f.patchChangedLines() <= 3 * p.goldChangedLines() + 4;
            boolean kept = f.removedDefinitions().isEmpty();
            double q = 0.25 * ((noTests ? 1 : 0) + (confined ? 1 : 0) + (small ? 1 : 0) + (kept ? 1 : 0));
            return new Score(q, (noTests ? "" : "edited tests " + f.editedTests() + "; ") + (confined ? "" : "edits outside the fix's files; ")
                    + (small ? "" : f.patchChangedLines() + " changed lines vs " + p.goldChangedLines() + " in the gold patch; ")
                    + (kept ? "" : "deleted " + f.removedDefinitions()));
        }
    }

    /**
     * 0.4 ran the tests after the last edit; 0.2 never repeated an identical failing command;
     * 0.2 no undo churn; 0.2 × the share of readable turns.
     */
    record TrajectoryDiscipline() implements Check {
        static final Pattern TESTS = Pattern.compile("\\b(test|tests|pytest|unittest|mvn|gradle)\\b");

        public Score score(EpisodeFacts f, Privileged p) {
            int lastEdit = f.calls().stream().filter(c -> c.tool().equals("file_editor") && f.edited().contains(c.subject()))
                    .mapToInt(EpisodeFacts.Call::turn).max().orElse(-1);
            boolean ranTests = f.calls().stream().anyMatch(c -> c.tool().equals("bash") && c.turn() > lastEdit && TESTS.matcher(c.subject()).find());
            var failing = new HashMap<String, Integer>();
            for (var c : f.calls()) {
                if (c.tool().equals("bash") && c.failed()) {
                    failing.merge(c.subject(), 1, Integer::sum);
                }
            }
            boolean noRepeats = failing.values().stream().allMatch(n -> n < 2);
            boolean noChurn = f.undos() == 0;
            double readable = f.turns() == 0 ? 0 : 1.0 - (double) f.unparsable() / f.turns();
            double q = 0.4 * (ranTests ? 1 : 0) + 0.2 * (noRepeats ? 1 : 0) + 0.2 * (noChurn ? 1 : 0) + 0.2 * readable;
            return new Score(q, (ranTests ? "ran the tests after editing" : "did not run the tests after the last edit")
                    + (noRepeats ? "" : "; repeated a failing command") + (noChurn ? "" : "; undid " + f.undos() + " edit(s)")
                    + "; " + f.unparsable() + " unreadable turn(s)");
        }
    }

    /** 1 − turns / max_steps; 0 for an episode that ran out of steps. */
    record Budget() implements Check {
        public Score score(EpisodeFacts f, Privileged p) {
            if (f.termination() == Termination.MAX_STEPS) {
                return new Score(0, "ran out of steps");
            }
            double q = Math.max(0, 1 - (double) f.turns() / Math.max(1, f.maxSteps()));
            return new Score(q, f.turns() + " of " + f.maxSteps() + " steps");
        }
    }

    /** 1 when some bash command matches {@code pattern}. */
    record RanCommand(Pattern pattern) implements Check {
        public Score score(EpisodeFacts f, Privileged p) {
            boolean ran = f.calls().stream().anyMatch(c -> c.tool().equals("bash") && pattern.matcher(c.subject()).find());
            return new Score(ran ? 1 : 0, (ran ? "ran " : "never ran ") + pattern.pattern());
        }
    }

    /** 1 when the agent viewed (or edited, with {@code edited}) {@code path}. */
    record Touched(String path, boolean edited) implements Check {
        public Score score(EpisodeFacts f, Privileged p) {
            boolean yes = edited ? f.edited().contains(path) : f.viewed().contains(path) || f.edited().contains(path);
            return new Score(yes ? 1 : 0, (yes ? "" : "never ") + (edited ? "edited " : "viewed ") + path);
        }
    }

    /** 1 when no file of the patch matches {@code pattern}. */
    record PatchExcludes(Pattern pattern) implements Check {
        public Score score(EpisodeFacts f, Privileged p) {
            var hits = f.patchFiles().stream().filter(x -> pattern.matcher(x).find()).toList();
            return new Score(hits.isEmpty() ? 1 : 0, hits.isEmpty() ? "patch avoids " + pattern.pattern() : "patch touches " + hits);
        }
    }

    /** 1 within {@code n} turns, n / turns beyond. */
    record MaxTurns(int n) implements Check {
        public Score score(EpisodeFacts f, Privileged p) {
            double q = f.turns() <= n ? 1 : (double) n / f.turns();
            return new Score(q, f.turns() + " turns (limit " + n + ")");
        }
    }
}
