package ai.openalice.rl.bench;

import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.prm.EpisodeFacts;
import ai.openalice.rl.prm.Privileged;
import ai.openalice.rl.prm.Rubric;
import ai.openalice.rl.prm.Scorer;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * Rubric scoring throughput for 100-turn trajectories (facts extraction + the four built-in
 * criteria + composition), one thread; baseline, same run: only walking the turns once.
 */
final class RubricBench {
    private RubricBench() {}

    static void run(String[] args) {
        var turns = new ArrayList<Turn>();
        String[] tools = {"bash", "file_editor", "search"};
        for (int i = 0; i < 100; i++) {
            String tool = tools[i % 3];
            var a = JsonNodeFactory.instance.objectNode();
            switch (tool) {
                case "bash" -> a.put("command", i % 7 == 0 ? "python3 -m pytest -q" : "ls src/pkg" + i);
                case "file_editor" -> a.put("command", i % 2 == 0 ? "view" : "str_replace").put("path", "src/pkg/mod" + (i % 10) + ".py");
                default -> a.put("pattern", "def f" + i);
            }
            List<Integer> completion = new ArrayList<>();
            for (int k = 0; k < 60; k++) {
                completion.add(k);
            }
            turns.add(new Turn(i, List.of(1, 2, 3), completion, Collections.nCopies(60, -0.5), 3, new Action(tool, a, null),
                    "[exit code " + (i % 5 == 0 ? 1 : 0) + "]\n" + "output line\n".repeat(40), 1, 1));
        }
        var t = new Trajectory(turns);
        String patch = "diff --git a/src/pkg/mod3.py b/src/pkg/mod3.py\n--- a/src/pkg/mod3.py\n+++ b/src/pkg/mod3.py\n@@ -1,3 +1,3 @@\n def f(x):\n"
                + "-    return x - 1\n+    return x + 1\n";
        var gold = new Privileged(Set.of("src/pkg/mod3.py"), 2, List.of("tests/test_mod3.py::test_f"), "pytest");
        var rubric = Rubric.builtIn();
        int n = 20_000;
        double sink = 0;
        for (int i = 0; i < 2_000; i++) {
            sink += Scorer.score(rubric, EpisodeFacts.of(t, patch, 100, Termination.SUBMITTED), gold, i % 2 == 0, 0.8).reward();
        }
        long s = System.nanoTime();
        for (int i = 0; i < n; i++) {
            sink += Scorer.score(rubric, EpisodeFacts.of(t, patch, 100, Termination.SUBMITTED), gold, i % 2 == 0, 0.8).reward();
        }
        double perSec = n / ((System.nanoTime() - s) / 1e9);
        s = System.nanoTime();
        for (int i = 0; i < n; i++) {
            for (Turn turn : t.turns()) {
                sink += turn.observation().length();
            }
        }
        double walk = n / ((System.nanoTime() - s) / 1e9);
        System.out.printf("%nrubric scoring, 100-turn trajectories, one thread: %,.0f trajectories/s (target >= 200)%n", perSec);
        System.out.printf("  baseline: walking the turns once: %,.0f trajectories/s (ratio %.1fx)   [%s]%n", walk, walk / perSec, sink > 0 ? "ok" : "");
    }
}
