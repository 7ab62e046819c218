package ai.openalice.rl.prm;

import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.harness.PatchPaths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What the rubric may know and the agent never sees (the asymmetric-critic idea): the gold
 * patch's files and size, the hidden tests' names, the test command.
 */
public record Privileged(Set<String> goldFiles, int goldChangedLines, List<String> hiddenTests, String testCommand) {

    public static Privileged of(Task task) {
        String gold = task.patch() == null ? "" : task.patch();
        var tests = new ArrayList<>(task.failToPass());
        tests.addAll(task.passToPass());
        return new Privileged(Set.copyOf(PatchPaths.of(gold)), PatchPaths.changedLines(gold), List.copyOf(tests), task.testCommand());
    }
}
