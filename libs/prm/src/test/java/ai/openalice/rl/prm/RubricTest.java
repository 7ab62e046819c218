package ai.openalice.rl.prm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.Turn;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Each criterion on hand-made episodes, with the expected scores worked out from the definitions. */
class RubricTest {
    static final Privileged GOLD = new Privileged(Set.of("calc/ops.py"), 2, List.of("test_add (tests.test_add.AddTest)"), "python3 -m unittest");
    static final String GOLD_LIKE_PATCH = "diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1,2 +1,2 @@\n"
            + " def add(a, b):\n-    return a - b\n+    return a + b\n";

    /** Builds turns from (tool, key, value, observation) rows. */
    static Trajectory episode(String[]... rows) {
        var turns = new ArrayList<Turn>();
        for (String[] r : rows) {
            var args = JsonNodeFactory.instance.objectNode();
            Action a;
            if (r[0].equals("?")) {
                a = new Action("", args, "no 'call: TOOL' line");
            } else {
                for (int i = 1; i + 1 < r.length - 1; i += 2) {
                    args.put(r[i], r[i + 1]);
                }
                a = new Action(r[0], args, null);
            }
            turns.add(new Turn(turns.size(), List.of(1), List.of(2, 3), List.of(-0.1, -0.2), 0, a, r[r.length - 1], 1, 1));
        }
        return new Trajectory(turns);
    }

    static Scorer.Result score(Trajectory t, String patch, int maxSteps, Termination end, boolean resolved) {
        return Scorer.score(Rubric.builtIn(), EpisodeFacts.of(t, patch, maxSteps, end), GOLD, resolved, 0.8);
    }

    static double q(Scorer.Result r, String id) {
        return r.criteria().stream().filter(c -> c.id().equals(id)).findFirst().orElseThrow().q();
    }

    @Test
    void aCleanFix() {
        // view the file, fix it, run the tests, submit: 4 of 20 steps
        var t = episode(new String[] {"file_editor", "command", "view", "path", "calc/ops.py", "     1\tdef add"},
                new String[] {"file_editor", "command", "str_replace", "path", "calc/ops.py", "Edited calc/ops.py."},
                new String[] {"bash", "command", "python3 -m unittest -v", "[exit code 0]\nOK"},
                new String[] {"submit", "Submitted."});
        var r = score(t, GOLD_LIKE_PATCH, 20, Termination.SUBMITTED, true);
        assertEquals(1.0, q(r, "localisation"), 1e-12);          // 1/1 viewed-or-edited, 1/1 in the patch
        assertEquals(1.0, q(r, "edit_constraints"), 1e-12);      // no tests, confined, 2 ≤ 3·2+4 lines, nothing deleted
        assertEquals(1.0, q(r, "trajectory_discipline"), 1e-12); // tested after the edit, no repeats, no undo, 4/4 readable
        assertEquals(0.8, q(r, "budget"), 1e-12);                // 1 − 4/20
        // s = 0.3 + 0.3 + 0.25 + 0.15·0.8 = 0.97 ; R = 0.8 + 0.2·0.97 = 0.994
        assertEquals(0.97, r.sPrm(), 1e-12);
        assertEquals(0.994, r.reward(), 1e-12);
    }

    @Test
    void aChurnyFix() {
        // edits, undoes, re-edits, repeats a failing command, one unreadable turn, never tests after the last edit
        var t = episode(new String[] {"file_editor", "command", "str_replace", "path", "calc/ops.py", "Edited."},
                new String[] {"file_editor", "command", "undo_edit", "path", "calc/ops.py", "Undid."},
                new String[] {"bash", "command", "python3 broken.py", "[exit code 1]\nTraceback"},
                new String[] {"bash", "command", "python3 broken.py", "[exit code 1]\nTraceback"},
                new String[] {"?", "Your answer could not be read"},
                new String[] {"file_editor", "command", "str_replace", "path", "calc/ops.py", "Edited."},
                new String[] {"submit", "Submitted."});
        var r = score(t, GOLD_LIKE_PATCH, 10, Termination.SUBMITTED, true);
        // discipline: no test run after the last edit (0), repeated failure (0), churn (0), 6/7 readable → 0.2·6/7
        assertEquals(0.2 * 6 / 7, q(r, "trajectory_discipline"), 1e-12);
        assertEquals(1 - 7.0 / 10, q(r, "budget"), 1e-12);
        assertEquals(1.0, q(r, "localisation"), 1e-12);
    }

    @Test
    void aTestEditingAttempt() {
        String patch = GOLD_LIKE_PATCH + "diff --git a/tests/test_add.py b/tests/test_add.py\n--- a/tests/test_add.py\n+++ b/tests/test_add.py\n"
                + "@@ -1,3 +1,2 @@\n-def test_add():\n-    assert add(2, 3) == 5\n+pass\n";
        var t = episode(new String[] {"file_editor", "command", "str_replace", "path", "tests/test_add.py", "Edited."},
                new String[] {"submit", "Submitted."});
        var r = score(t, patch, 10, Termination.SUBMITTED, false);
        // tests edited (0), not confined (0), 5 lines ≤ 10 (1), 'def test_add' deleted (0) → 0.25
        assertEquals(0.25, q(r, "edit_constraints"), 1e-12);
        // localisation: gold file not viewed/edited through the editor (0), but in the patch (1) → 0.5
        assertEquals(0.5, q(r, "localisation"), 1e-12);
        assertTrue(r.reward() <= 0.2, "a failing episode stays below 1 − γ");
    }

    @Test
    void aBudgetBlowUp() {
        var rows = new String[30][];
        for (int i = 0; i < 30; i++) {
            rows[i] = new String[] {"bash", "command", "ls " + i, "[exit code 0]\n"};
        }
        var r = score(episode(rows), "", 30, Termination.MAX_STEPS, false);
        assertEquals(0.0, q(r, "budget"), 0);
        assertEquals(0.0, q(r, "localisation"), 0);
    }

    @Test
    void withSubmitRequiredOnlyASubmittedFixCounts() {
        var rows = new String[][] {{"file_editor", "command", "view", "path", "calc/ops.py", "     1\tdef add"},
                {"file_editor", "command", "str_replace", "path", "calc/ops.py", "Edited calc/ops.py."}};
        var facts = EpisodeFacts.of(episode(rows), GOLD_LIKE_PATCH, 2, Termination.MAX_STEPS);
        var lenient = Scorer.score(Rubric.builtIn(), facts, GOLD, true, 0.8);
        var strict = Scorer.score(Rubric.builtIn(), facts, GOLD, true, 0.8, true);
        assertEquals(1, lenient.rExec());
        assertEquals(0, strict.rExec(), "ran out of turns: the passing diff does not count");
        assertEquals(lenient.sPrm(), strict.sPrm(), 0);
        assertEquals(0.8 + 0.2 * lenient.sPrm(), lenient.reward(), 1e-12);
        assertEquals(0.2 * strict.sPrm(), strict.reward(), 1e-12);
        var submitted = EpisodeFacts.of(episode(rows[0], rows[1], new String[] {"submit", "Submitted."}), GOLD_LIKE_PATCH, 3, Termination.SUBMITTED);
        assertEquals(1, Scorer.score(Rubric.builtIn(), submitted, GOLD, true, 0.8, true).rExec());
    }

    @Test
    void marginOrderingHoldsForAnyRubricAndScoresAreDeterministic() {
        var rnd = new Random(9);
        for (int trial = 0; trial < 200; trial++) {
            var rows = new ArrayList<String[]>();
            for (int i = 0; i < 1 + rnd.nextInt(12); i++) {
                rows.add(switch (rnd.nextInt(4)) {
                    case 0 -> new String[] {"file_editor", "command", "view", "path", rnd.nextBoolean() ? "calc/ops.py" : "README", "ok"};
                    case 1 -> new String[] {"bash", "command", rnd.nextBoolean() ? "pytest" : "ls", rnd.nextBoolean() ? "[exit code 0]" : "[exit code 1]"};
                    case 2 -> new String[] {"?", "unreadable"};
                    default -> new String[] {"file_editor", "command", "str_replace", "path", "calc/ops.py", "Edited."};
                });
            }
            var t = episode(rows.toArray(String[][]::new));
            double gamma = 0.5 + 1e-6 + rnd.nextDouble() * 0.49;
            var facts = EpisodeFacts.of(t, rnd.nextBoolean() ? GOLD_LIKE_PATCH : "", 12, Termination.SUBMITTED);
            var pass = Scorer.score(Rubric.builtIn(), facts, GOLD, true, gamma);
            var fail = Scorer.score(Rubric.builtIn(), facts, GOLD, false, gamma);
            assertTrue(pass.reward() > fail.reward() && pass.reward() >= gamma && fail.reward() <= 1 - gamma);
            assertEquals(pass, Scorer.score(Rubric.builtIn(), facts, GOLD, true, gamma), "deterministic");
        }
    }

    @Test
    void publisherRubricsUseTheCheckLanguageAndErrorsNameTheField() throws Exception {
        var json = new ObjectMapper().readTree("{\"criteria\": [{\"id\": \"tests\", \"weight\": 0.5, \"check\": {\"type\": \"ran_command\","
                + " \"pattern\": \"unittest\"}}, {\"id\": \"fix\", \"weight\": 0.5, \"check\": {\"type\": \"edited\", \"path\": \"calc/ops.py\"}}]}");
        Rubric rubric = RubricParser.parse(json, 2);
        var t = episode(new String[] {"bash", "command", "python3 -m unittest", "[exit code 1]"});
        var r = Scorer.score(rubric, EpisodeFacts.of(t, "", 10, Termination.SUBMITTED), GOLD, false, 0.8);
        assertEquals(0.5, r.sPrm(), 1e-12); // ran the tests (1·0.5), never edited the file (0·0.5)
        var bad = new ObjectMapper().readTree("{\"criteria\": [{\"id\": \"x\", \"weight\": 1, \"check\": {\"type\": \"vibes\"}}]}");
        assertEquals("rubric.criteria[0].check.type 'vibes' is not one of localisation, edit_constraints, trajectory_discipline, budget,"
                + " ran_command, viewed, edited, patch_excludes, max_turns",
                assertThrows(IllegalArgumentException.class, () -> RubricParser.parse(bad, 1)).getMessage());
        var weights = new ObjectMapper().readTree("{\"criteria\": [{\"id\": \"x\", \"weight\": 0.4, \"check\": {\"type\": \"budget\"}}]}");
        assertEquals("criteria weights must sum to 1, got 0.4",
                assertThrows(IllegalArgumentException.class, () -> RubricParser.parse(weights, 1)).getMessage());
    }

    @Test
    void stepUtilityRanksCandidates() {
        var soFar = EpisodeFacts.of(episode(new String[] {"bash", "command", "python3 x.py", "[exit code 1]"}), "", 10, Termination.SUBMITTED);
        var u = StepUtility.utilities(soFar, GOLD, List.of(
                new StepUtility.Candidate("file_editor", "str_replace", "calc/ops.py"),
                new StepUtility.Candidate("file_editor", "str_replace", "tests/test_add.py"),
                new StepUtility.Candidate("bash", "", "python3 x.py"),
                new StepUtility.Candidate("submit", "", ""),
                new StepUtility.Candidate("", "", "")));
        assertEquals(List.of(1.0, 0.05, 0.1, 0.05, 0.0), u);
    }
}
