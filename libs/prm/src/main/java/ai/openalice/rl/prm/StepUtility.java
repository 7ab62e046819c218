package ai.openalice.rl.prm;

import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.harness.TestFiles;
import java.util.ArrayList;
import java.util.List;

/**
 * Step-level utility u_t(a) ∈ [0, 1] of a candidate next action, from the rubric's step-level
 * criteria, for test-time scaling (q_t(a) ∝ π_θ(a)·exp(β·u_t(a))): touching a file the fix is in
 * is good, editing a test is bad, repeating a command that failed is wasted, running the tests
 * after an edit is good, submitting before any test run is premature, an unreadable answer is 0.
 */
public final class StepUtility {
    private StepUtility() {}

    /** A candidate action: tool and its main argument (command, path or pattern); tool empty for an unreadable answer. */
    public record Candidate(String tool, String command, String subject) {}

    /**
     * The utility of each turn's own action given the turns before it, in turn order: how the rubric
     * judged every step of an episode (carried on rewards.scored, shown on the episode's trace).
     */
    public static List<Double> ofEpisode(Trajectory t, Privileged p, int maxSteps) {
        var out = new ArrayList<Double>();
        var turns = t.turns();
        for (int i = 0; i < turns.size(); i++) {
            var before = EpisodeFacts.of(new Trajectory(turns.subList(0, i)), "", maxSteps, Termination.SUBMITTED);
            out.add(utilities(before, p, List.of(candidate(turns.get(i)))).get(0));
        }
        return out;
    }

    /** A turn's action as a candidate: its tool, the editor's command, and its main argument as {@link EpisodeFacts} reads it. */
    static Candidate candidate(Turn turn) {
        var a = turn.action();
        if (a == null || a.parseError() != null || a.tool() == null || a.tool().isEmpty()) {
            return new Candidate("", "", "");
        }
        String subject = switch (a.tool()) {
            case "bash" -> a.args().path("command").asText("");
            case "file_editor" -> a.args().path("path").asText("");
            case "search" -> a.args().path("pattern").asText("");
            default -> "";
        };
        return new Candidate(a.tool(), a.tool().equals("file_editor") ? a.args().path("command").asText("") : "", subject);
    }

    public static List<Double> utilities(EpisodeFacts soFar, Privileged p, List<Candidate> candidates) {
        var out = new ArrayList<Double>();
        boolean edited = !soFar.edited().isEmpty();
        boolean tested = soFar.calls().stream().anyMatch(c -> c.tool().equals("bash") && Check.TrajectoryDiscipline.TESTS.matcher(c.subject()).find());
        for (Candidate c : candidates) {
            double u;
            if (c.tool() == null || c.tool().isEmpty()) {
                u = 0;
            } else if (c.tool().equals("file_editor")) {
                String path = EpisodeFacts.normalise(c.subject());
                boolean isTest = TestFiles.isProtected(path);
                boolean editing = !"view".equals(c.command());
                u = editing && isTest ? 0.05 : p.goldFiles().contains(path) ? (editing ? 1.0 : 0.8) : (editing ? 0.3 : 0.5);
            } else if (c.tool().equals("bash")) {
                boolean failedBefore = soFar.calls().stream().anyMatch(x -> x.tool().equals("bash") && x.failed() && x.subject().equals(c.subject()));
                boolean runsTests = Check.TrajectoryDiscipline.TESTS.matcher(c.subject()).find();
                u = failedBefore ? 0.1 : runsTests ? (edited ? 0.9 : 0.7) : 0.5;
            } else if (c.tool().equals("submit")) {
                u = edited && tested ? 1.0 : edited ? 0.3 : 0.05;
            } else {
                u = 0.5;
            }
            out.add(u);
        }
        return out;
    }
}
