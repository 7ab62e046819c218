package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.agent.format.CompactFormat;
import ai.openalice.rl.agent.loop.AgentLoop;
import ai.openalice.rl.agent.loop.Episode;
import ai.openalice.rl.agent.loop.LoopConfig;
import ai.openalice.rl.agent.scripted.OraclePolicy;
import ai.openalice.rl.agent.tools.Tools;
import ai.openalice.rl.cli.suite.BugFamily;
import ai.openalice.rl.cli.suite.TinySwe;
import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.TaskReader;
import ai.openalice.rl.harness.Harness;
import ai.openalice.rl.harness.VerifierOptions;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import ai.openalice.rl.sandbox.local.LocalSandboxConfig;
import ai.openalice.rl.sandbox.local.LocalSandboxProvider;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The tiny-swe generator: valid, reproducible, families held out, and every family's gold patch resolves its task in the real harness while the bug does not. */
class TinySweTest {
    /** Under target/: sandbox uids must be able to reach the sandbox root (a JUnit temp folder is 0700). */
    Path dir;

    @BeforeEach
    void folder() throws Exception {
        dir = Path.of("target", "tiny-swe-test", Long.toString(System.nanoTime())).toAbsolutePath();
        Files.createDirectories(dir);
    }

    @Test
    void theSuiteIsValidReproducibleAndHoldsFamiliesOut() throws Exception {
        var out = new StringWriter();
        int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(out))
                .execute("tasks", "generate", "--suite", "tiny-swe", "--count", "20", "--heldout", "12", "--seed", "7", "--out", dir.resolve("a").toString());
        assertEquals(0, exit, out.toString());
        TinySwe.generate(dir.resolve("b"), 20, 12, 7);
        assertEquals(Files.readString(dir.resolve("a/train.jsonl")), Files.readString(dir.resolve("b/train.jsonl")), "same seed, same suite");
        TinySwe.generate(dir.resolve("c"), 20, 12, 8);
        assertFalse(Files.readString(dir.resolve("a/train.jsonl")).equals(Files.readString(dir.resolve("c/train.jsonl"))));

        var train = valid(dir.resolve("a/train.jsonl"));
        var held = valid(dir.resolve("a/heldout.jsonl"));
        assertEquals(20, train.size());
        assertEquals(12, held.size());
        Set<String> trainFamilies = train.stream().map(t -> t.raw().get("family").asText()).collect(Collectors.toSet());
        Set<String> heldFamilies = held.stream().map(t -> t.raw().get("family").asText()).collect(Collectors.toSet());
        assertEquals(BugFamily.ALL.size() - TinySwe.HELD_OUT_FAMILIES.size(), trainFamilies.size(), "every training family appears");
        assertTrue(trainFamilies.stream().noneMatch(TinySwe.HELD_OUT_FAMILIES::contains), "held-out families never in training");
        assertEquals(BugFamily.ALL.size(), heldFamilies.size(), "the held-out split has every family");
        var statements = new HashSet<String>();
        for (Task t : train) {
            assertTrue(statements.add(t.problemStatement()), "distinct tasks: " + t.problemStatement());
            assertFalse(t.problemStatement().contains(t.patch().lines().filter(l -> l.startsWith("+") && !l.startsWith("+++")).findFirst()
                    .orElseThrow().substring(1).strip()), "the statement never shows the fix");
        }
    }

    @Test
    void everyFamilysGoldPatchResolvesItsTaskAndTheBugDoesNot() throws Exception {
        TinySwe.generate(dir, BugFamily.ALL.size(), BugFamily.ALL.size(), 3);
        var tasks = valid(dir.resolve("heldout.jsonl")); // one task per family
        var config = LocalSandboxConfig.defaults().withRoot(dir.resolve("sandboxes"));
        try (var sandboxes = new LocalSandboxProvider(config)) {
            var harness = new Harness(sandboxes, VerifierOptions.defaults());
            for (Task t : tasks) {
                var gold = harness.verify(t, t.patch());
                assertTrue(gold.resolved(), t.instanceId() + " gold: " + gold);
                var none = harness.verify(t, "");
                assertFalse(none.resolved(), t.instanceId() + " without a fix: " + none);
                assertEquals(t.failToPass().size(), none.failToPass().values().stream().filter(s -> !s.name().equals("PASSED")).count(),
                        t.instanceId() + ": every FAIL_TO_PASS test fails on the bug");
            }
        }
    }

    @Test
    void theOraclesFixNamesOneLineOfTheModule() throws Exception {
        // seed 1 with 256 tasks drew a wrong-index bug ("return items[0]") next to the neighbour first(), whose body is the same line
        TinySwe.generate(dir, 256, 16, 1);
        var mapper = new ObjectMapper();
        int withMistakes = 0;
        for (String file : List.of("train.jsonl", "heldout.jsonl")) {
            for (String line : Files.readAllLines(dir.resolve(file))) {
                var t = mapper.readTree(line);
                var steps = t.get("oracle_trajectory");
                // the fix is the last str_replace (a demonstration may try a refused one first)
                var fix = steps.get(steps.size() - 3).get("args");
                assertEquals("str_replace", fix.get("command").asText());
                String module = Files.readString(dir.resolve(t.at("/workspace/path").asText()).resolve(fix.get("path").asText()));
                String old = fix.get("old_str").asText();
                assertEquals(module.indexOf(old), module.lastIndexOf(old), t.get("instance_id").asText() + ": '" + old + "' occurs more than once");
                assertTrue(module.contains(old), t.get("instance_id").asText());
                if (steps.size() > 4) {
                    assertEquals("train.jsonl", file, "held-out demonstrations have no mistakes: " + t.get("instance_id").asText());
                    withMistakes++;
                }
            }
        }
        // each of three mistakes with probability 1/4: P(any) = 1 - (3/4)^3 = 37/64, 148 of 256 expected, standard deviation 7.9
        // (a little lower: a swapped or miscopied line that occurs in the module is not tried)
        assertTrue(withMistakes > 108 && withMistakes < 172, withMistakes + " of 256 demonstrations with a mistake");
    }

    @Test
    void aDemonstrationRefusedTwiceInARowViewsTheModuleAgainAndResolvesTheTask() throws Exception {
        TinySwe.generate(dir, 64, 0, 1);
        Task task = null;
        for (Task t : valid(dir.resolve("train.jsonl"))) { // the longest demonstration: the most mistakes
            if (task == null || t.raw().get("oracle_trajectory").size() > task.raw().get("oracle_trajectory").size()) {
                task = t;
            }
        }
        var steps = task.raw().get("oracle_trajectory");
        String module = steps.get(steps.size() - 3).at("/args/path").asText();
        // refused: a view of another path, and every str_replace but the last
        var expected = new ArrayList<Boolean>();
        for (int i = 0; i < steps.size(); i++) {
            var args = steps.get(i).get("args");
            String command = args.path("command").asText();
            expected.add(command.equals("view") ? !args.get("path").asText().equals(module) : command.equals("str_replace") && i != steps.size() - 3);
        }
        int twoInARow = Collections.indexOfSubList(expected, List.of(true, true, false));
        assertTrue(twoInARow >= 0 && steps.get(twoInARow + 2).at("/args/command").asText().equals("view"),
                "the longest of 64 demonstrations has two refused edits, then a view: " + steps);
        var tok = new ByteTokenizer();
        var format = new CompactFormat();
        try (var sandboxes = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(dir.resolve("sandboxes")))) {
            Episode e;
            try (var sandbox = sandboxes.create(SandboxSpec.of(WorkspaceSource.of(task.workspace(), null)))) {
                e = new AgentLoop(OraclePolicy.replaying(steps, tok, format), tok, format,
                        Tools.standard()).run(task.agentView(1), sandbox, LoopConfig.defaults(12, 8192));
            }
            var failed = e.trajectory().turns().stream().map(t -> t.action().toolError()).toList();
            assertEquals(expected, failed, "refused: the misspelt view, the swapped and the miscopied fixes");
            assertTrue(e.trajectory().turns().get(twoInARow).observation().contains("does not occur"), e.trajectory().turns().get(twoInARow).observation());
            assertTrue(new Harness(sandboxes, VerifierOptions.defaults()).verify(task, e.patch()).resolved(), e.patch());
        }
    }

    static List<Task> valid(Path file) {
        return TaskReader.read(file).stream().map(l -> switch (l) {
            case TaskReader.Line.Valid v -> v.task();
            case TaskReader.Line.Invalid i -> throw new AssertionError(file + ":" + i.number() + ": " + i.errors());
        }).toList();
    }
}
