package ai.openalice.rl.prm;

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
