package ai.openalice.rl.prm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.events.task.TaskParser;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The checks, the facts they read and the step utilities case by case, each expected value worked
 * out by hand from the definitions (the branches {@code RubricTest}'s whole episodes leave open).
 */
class ChecksTest {
    static final Privileged TWO_GOLD = new Privileged(Set.of("a.py", "b.py"), 2, List.of(), "pytest");
    static final EpisodeFacts.Call VIEW_A = new EpisodeFacts.Call("file_editor", "a.py", false, 0);

    /** Facts with the given calls, viewed, edited and patch files; 10 changed lines, 4 turns of 20. */
    static EpisodeFacts facts(List<EpisodeFacts.Call> calls, Set<String> viewed, Set<String> edited, Set<String> patch) {
        return new EpisodeFacts(calls, viewed, edited, patch, 10, List.of(), 0, 0, 4, 20, 0, Termination.SUBMITTED);
    }

    @Test
    void localisationHalvesBetweenFindingAndPatching() {
        // a.py viewed (1 of 2 found), b.py in the patch (1 of 2): 0.5·1/2 + 0.5·1/2
        var s = new Check.Localisation().score(facts(List.of(VIEW_A), Set.of("a.py"), Set.of(), Set.of("b.py")), TWO_GOLD);
        assertEquals(0.5, s.q(), 1e-12);
        assertEquals("1/2 gold files viewed or edited, 1 in the patch", s.detail());
        var none = new Check.Localisation().score(facts(List.of(), Set.of(), Set.of(), Set.of()), new Privileged(Set.of(), 0, List.of(), ""));
        assertEquals(new Check.Score(1, "no gold files to find"), none);
    }

    @Test
    void editConstraintsCountFourQuartersAndSayWhichFailed() {
        // gold 2 lines: within 3·2 + 4 = 10 changed lines; 10 is still proportionate, 11 is not
        var ok = new Check.EditConstraints().score(facts(List.of(), Set.of(), Set.of("a.py"), Set.of("a.py")), TWO_GOLD);
        assertEquals(new Check.Score(1, ""), ok);
        var all = new EpisodeFacts(List.of(), Set.of(), Set.of(), Set.of("tests/test_a.py", "c.py"), 11, List.of("def helper"), 0, 0, 4, 20, 0,
                Termination.SUBMITTED);
        var bad = new Check.EditConstraints().score(all, TWO_GOLD);
        assertEquals(0, bad.q(), 1e-12);
        assertEquals("edited tests [tests/test_a.py]; edits outside the fix's files; 11 changed lines vs 2 in the gold patch; deleted [def helper]",
                bad.detail());
    }

    @Test
    void disciplineSaysWhatWentWrong() {
        // edit a.py at turn 0, a failing command twice, an undo, one unreadable turn of 4, no test run after the edit
        var calls = List.of(new EpisodeFacts.Call("file_editor", "a.py", false, 0), new EpisodeFacts.Call("bash", "python3 x.py", true, 1),
                new EpisodeFacts.Call("bash", "python3 x.py", true, 2));
        var f = new EpisodeFacts(calls, Set.of(), Set.of("a.py"), Set.of("a.py"), 2, List.of(), 1, 1, 4, 20, 0, Termination.SUBMITTED);
        var s = new Check.TrajectoryDiscipline().score(f, TWO_GOLD);
        assertEquals(0.2 * 0.75, s.q(), 1e-12); // only the readable share: 3 of 4
        assertEquals("did not run the tests after the last edit; repeated a failing command; undid 1 edit(s); 1 unreadable turn(s)", s.detail());
        var tested = new EpisodeFacts(List.of(calls.getFirst(), new EpisodeFacts.Call("bash", "pytest -x", false, 1)), Set.of(), Set.of("a.py"),
                Set.of("a.py"), 2, List.of(), 0, 0, 2, 20, 0, Termination.SUBMITTED);
        assertEquals(new Check.Score(1, "ran the tests after editing; 0 unreadable turn(s)"), new Check.TrajectoryDiscipline().score(tested, TWO_GOLD));
        // the last edit is the last editor call on an edited file: tests before it do not count, a view of another file after them changes nothing
        var before = new EpisodeFacts(List.of(new EpisodeFacts.Call("bash", "pytest -x", false, 0), new EpisodeFacts.Call("file_editor", "a.py", false, 1)),
                Set.of(), Set.of("a.py"), Set.of("a.py"), 2, List.of(), 0, 0, 2, 20, 0, Termination.SUBMITTED);
        assertEquals(0.6, new Check.TrajectoryDiscipline().score(before, TWO_GOLD).q(), 1e-12);
        var viewAfter = new EpisodeFacts(List.of(calls.getFirst(), new EpisodeFacts.Call("bash", "pytest -x", false, 1),
                new EpisodeFacts.Call("file_editor", "c.py", false, 2)), Set.of("c.py"), Set.of("a.py"), Set.of("a.py"), 2, List.of(), 0, 0, 3, 20, 0,
                Termination.SUBMITTED);
        assertEquals(1.0, new Check.TrajectoryDiscipline().score(viewAfter, TWO_GOLD).q(), 1e-12);
    }

    @Test
    void thePrimitiveChecks() {
        var f = facts(List.of(VIEW_A, new EpisodeFacts.Call("file_editor", "pytest.ini", false, 1), new EpisodeFacts.Call("bash", "ls", false, 2)),
                Set.of("a.py"), Set.of("b.py"), Set.of("b.py", "docs/x.md"));
        var pytest = Pattern.compile("pytest");
        assertEquals(new Check.Score(0, "never ran pytest"), new Check.RanCommand(pytest).score(f, TWO_GOLD), "a file named pytest.ini is no command");
        assertEquals(new Check.Score(1, "ran ^ls"), new Check.RanCommand(Pattern.compile("^ls")).score(f, TWO_GOLD));
        assertEquals(new Check.Score(1, "viewed a.py"), new Check.Touched("a.py", false).score(f, TWO_GOLD));
        assertEquals(new Check.Score(1, "viewed b.py"), new Check.Touched("b.py", false).score(f, TWO_GOLD), "an edit is a view");
        assertEquals(new Check.Score(0, "never edited a.py"), new Check.Touched("a.py", true).score(f, TWO_GOLD), "a view is no edit");
        assertEquals(new Check.Score(1, "edited b.py"), new Check.Touched("b.py", true).score(f, TWO_GOLD));
        assertEquals(new Check.Score(0, "patch touches [docs/x.md]"), new Check.PatchExcludes(Pattern.compile("^docs/")).score(f, TWO_GOLD));
        assertEquals(new Check.Score(1, "patch avoids ^tests/"), new Check.PatchExcludes(Pattern.compile("^tests/")).score(f, TWO_GOLD));
        assertEquals(new Check.Score(1, "4 turns (limit 4)"), new Check.MaxTurns(4).score(f, TWO_GOLD), "at the limit");
        assertEquals(0.5, new Check.MaxTurns(2).score(f, TWO_GOLD).q(), 1e-12, "2 / 4 beyond it");
    }

    @Test
    void factsReadFromATrajectory() {
        var t = RubricTest.episode(new String[] {"file_editor", "command", "view", "path", "/workspace/./a.py", "     1\tx"},
                new String[] {"file_editor", "command", "str_replace", "path", "b.py", "file_editor: no match for old_str"},
                new String[] {"file_editor", "command", "str_replace", "path", "a.py", "Edited a.py."},
                new String[] {"file_editor", "command", "undo_edit", "path", "a.py", "Undid."},
                new String[] {"bash", "command", "pytest", "[exit code 1]\nFAILED"},
                new String[] {"bash", "command", "sleep 99", "[the command timed out after 30 s]"},
                new String[] {"bash", "command", "true", "[exit code 0]"},
                new String[] {"?", "unreadable"},
                new String[] {"search", "pattern", "def add", "a.py:1"});
        // def add removed and added back (an edited body) is no deletion; def gone is
        String patch = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1,4 +1,2 @@\n-def gone(x):\n-    return 1\n-def add(a, b):\n"
                + "-    return a - b\n+def add(a, b):\n+    return a + b\n";
        var f = EpisodeFacts.of(t, patch, 30, Termination.SUBMITTED);
        assertEquals(List.of(false, true, false, false, true, true, false, false), f.calls().stream().map(EpisodeFacts.Call::failed).toList(),
                "exit codes other than 0, timeouts and the editor's own errors failed");
        assertEquals(List.of("a.py", "b.py", "a.py", "a.py", "pytest", "sleep 99", "true", "def add"),
                f.calls().stream().map(EpisodeFacts.Call::subject).toList(), "paths without /workspace/ and ./");
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 8), f.calls().stream().map(EpisodeFacts.Call::turn).toList());
        assertEquals(Set.of("a.py"), f.viewed());
        assertEquals(Set.of("a.py"), f.edited(), "the failed edit of b.py is no edit");
        assertEquals(1, f.unparsable());
        assertEquals(1, f.undos());
        assertEquals(9, f.turns());
        assertEquals(18, f.completionTokens(), "two completion tokens a turn");
        assertEquals(6, f.patchChangedLines(), "the --- and +++ headers are no changed lines");
        assertEquals(List.of("def gone"), f.removedDefinitions(), "def add was kept");
    }

    @Test
    void definitionsAreNamedByKind() {
        assertEquals("def add", EpisodeFacts.definition("    def add(a, b):"));
        assertEquals("class Parser", EpisodeFacts.definition("class Parser(Base):"));
        assertEquals("method size", EpisodeFacts.definition("  public int size() {"));
        assertNull(EpisodeFacts.definition("return size();"));
    }

    @Test
    void stepUtilityOfEveryKindOfCandidate() {
        var gold = new Privileged(Set.of("calc/ops.py"), 2, List.of(), "pytest");
        var nothing = facts(List.of(), Set.of(), Set.of(), Set.of());
        var edited = facts(List.of(new EpisodeFacts.Call("bash", "python3 x.py", true, 0)), Set.of(), Set.of("calc/ops.py"), Set.of());
        var testedToo = facts(List.of(new EpisodeFacts.Call("bash", "pytest -q", false, 1)), Set.of(), Set.of("calc/ops.py"), Set.of());
        List<StepUtility.Candidate> c = List.of(new StepUtility.Candidate("", null, null),
                new StepUtility.Candidate("file_editor", "str_replace", "tests/test_ops.py"),
                new StepUtility.Candidate("file_editor", "view", "/workspace/calc/ops.py"),
                new StepUtility.Candidate("file_editor", "str_replace", "calc/ops.py"),
                new StepUtility.Candidate("file_editor", "str_replace", "calc/other.py"),
                new StepUtility.Candidate("file_editor", "view", "README.md"),
                new StepUtility.Candidate("bash", null, "python3 x.py"), new StepUtility.Candidate("bash", null, "pytest"),
                new StepUtility.Candidate("bash", null, "ls"), new StepUtility.Candidate("submit", null, ""),
                new StepUtility.Candidate("search", null, "def add"));
        assertEquals(List.of(0.0, 0.05, 0.8, 1.0, 0.3, 0.5, 0.1, 0.9, 0.5, 0.3, 0.5), StepUtility.utilities(edited, gold, c),
                "after an edit and a failed python3 x.py, no test run yet");
        assertEquals(List.of(0.0, 0.05, 0.8, 1.0, 0.3, 0.5, 0.5, 0.7, 0.5, 0.05, 0.5), StepUtility.utilities(nothing, gold, c), "at the start");
        assertEquals(1.0, StepUtility.utilities(testedToo, gold, c).get(9), "submitting after an edit and a test run");
    }

    @Test
    void stepUtilityOfEachTurnGivenTheTurnsBeforeIt() {
        var gold = new Privileged(Set.of("calc/ops.py"), 2, List.of(), "pytest");
        var json = new ObjectMapper();
        var turns = List.of(
                turn(0, new Action("bash", json.createObjectNode().put("command", "pytest -q"), null), "[exit code 1]\n1 failed"),
                turn(1, new Action("file_editor", json.createObjectNode().put("command", "view").put("path", "calc/ops.py"), null), "def add"),
                turn(2, new Action("file_editor", json.createObjectNode().put("command", "str_replace").put("path", "calc/ops.py"), null), "edited"),
                turn(3, new Action("bash", json.createObjectNode().put("command", "pytest -q"), null), "[exit code 0]\n2 passed"),
                turn(4, new Action("", null, "no tool call"), "no tool call"),
                turn(5, new Action("submit", json.createObjectNode(), null), "Submitted."));
        // by hand from the rules: tests before any edit 0.7; viewing a gold file 0.8; editing it 1.0; the same test command
        // again — it failed before (turn 0), so 0.1 although an edit came since; an unreadable answer 0; submitting after
        // an edit and a test run 1.0
        assertEquals(List.of(0.7, 0.8, 1.0, 0.1, 0.0, 1.0), StepUtility.ofEpisode(new Trajectory(turns), gold, 20));
        assertEquals(List.of(), StepUtility.ofEpisode(new Trajectory(List.of()), gold, 20));
    }

    private static Turn turn(int i, Action a, String observation) {
        return new Turn(i, List.of(), List.of(), List.of(), 0, a, observation, 1, 1);
    }

    @Test
    void privilegedInformationFromTheTask() throws Exception {
        var node = new ObjectMapper().readTree("""
                {"instance_id": "x__y-1", "problem_statement": "p", "workspace": {"type": "dir", "path": "/tmp"},
                 "test_command": "pytest", "test_report": {"format": "pytest"}, "FAIL_TO_PASS": ["t1"], "PASS_TO_PASS": ["t2", "t3"],
                 "patch": "diff --git a/a.py b/a.py\\n--- a/a.py\\n+++ b/a.py\\n@@ -1,2 +1,2 @@\\n-x = 1\\n-z = 0\\n+x = 2\\n+y = 3\\n"}""");
        var task = ((TaskParser.Result.Valid) new TaskParser(Path.of("/"))
                .parse(node)).task();
        assertEquals(new Privileged(Set.of("a.py"), 4, List.of("t1", "t2", "t3"), "pytest"), Privileged.of(task), "4 changed lines, not the headers");
    }

    @Test
    void rubricsNameTheCriterionAtFaultAndTakeAZeroWeight() throws Exception {
        var m = new ObjectMapper();
        var e = assertThrows(IllegalArgumentException.class, () -> RubricParser.parse(m.readTree("""
                {"criteria": [{"id": "a", "weight": 0.5, "check": {"type": "budget"}},
                              {"id": "b", "weight": 0.5, "check": {"type": "max_turns", "n": 0}}]}"""), 1));
        assertEquals("rubric.criteria[1].check.n must be a positive integer", e.getMessage());
        var r = RubricParser.parse(m.readTree("""
                {"criteria": [{"id": "a", "weight": 1.0, "check": {"type": "max_turns", "n": 3}},
                              {"id": "b", "weight": 0.0, "check": {"type": "budget"}}]}"""), 2);
        assertEquals(new Check.MaxTurns(3), r.criteria().getFirst().check());
        assertEquals(new Check.MaxTurns(1), RubricParser.parse(m.readTree("""
                {"criteria": [{"id": "a", "weight": 1.0, "check": {"type": "max_turns", "n": 1}}]}"""), 3).criteria().getFirst().check(), "1 is positive");
        assertEquals(0.0, r.criteria().get(1).weight(), "a criterion may weigh nothing");
    }
}
