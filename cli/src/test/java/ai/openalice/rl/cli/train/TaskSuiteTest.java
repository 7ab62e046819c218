package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.suite.TinySwe;
import ai.openalice.rl.events.EventCodec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code alice-rl train --tasks FILE}: the user's tasks become the run's suite, or are refused naming what is wrong. */
class TaskSuiteTest {
    @TempDir
    Path dir;

    /** A user's task file: eight tiny-swe training tasks (workspace folders relative to the file, gold patches, split train). */
    private Path userFile() throws Exception {
        var w = TinySwe.generate(dir.resolve("data"), 8, 0, 7);
        return w.train();
    }

    private static List<JsonNode> read(Path file) throws Exception {
        var out = new ArrayList<JsonNode>();
        for (String l : Files.readAllLines(file)) {
            if (!l.isBlank()) {
                out.add(EventCodec.mapper().readTree(l));
            }
        }
        return out;
    }

    private static Set<String> ids(List<JsonNode> tasks) {
        var s = new HashSet<String>();
        tasks.forEach(t -> s.add(t.get("instance_id").asText()));
        return s;
    }

    @Test
    void aFileWithoutEvalTasksGivesAQuarterOfItToTheProbesAndNoTaskToBoth() throws Exception {
        Path file = userFile();
        Path suite = dir.resolve("state/suite");
        var p = TaskSuite.prepare(suite, file.toString(), true, 16, 3, true, true, null);
        // --heldout 16 asks for more than a quarter of 8 tasks: 8 / 4 = 2 are held out, 6 train
        assertEquals(6, p.train());
        assertEquals(2, p.heldOut());
        assertEquals("file:train.jsonl", p.dataset());
        assertTrue(p.message().contains("at most a quarter"), p.message());
        var train = read(suite.resolve("train.jsonl"));
        var held = read(suite.resolve("heldout.jsonl"));
        Set<String> all = ids(read(file));
        Set<String> union = new HashSet<>(ids(train));
        union.addAll(ids(held));
        assertEquals(all, union);
        assertEquals(8, ids(train).size() + ids(held).size(), "no task in both");
        held.forEach(t -> assertEquals("eval", t.get("split").asText(), "held-out tasks never train"));
        train.forEach(t -> assertEquals("train", t.get("split").asText()));
        for (var t : train) { // relative to the user's file, made absolute: the suite folder is elsewhere
            Path ws = Path.of(t.at("/workspace/path").asText());
            assertTrue(ws.isAbsolute() && Files.isDirectory(ws) && ws.startsWith(dir.resolve("data")), ws.toString());
        }
        // the draw is the seed's: another state folder with the same seed holds out the same tasks
        var again = TaskSuite.prepare(dir.resolve("other/suite"), file.toString(), true, 16, 3, true, true, null);
        assertEquals(2, again.heldOut());
        assertEquals(ids(held), ids(read(dir.resolve("other/suite/heldout.jsonl"))));
    }

    @Test
    void theFilesEvalTasksAreTheHeldOutOnes() throws Exception {
        Path file = userFile();
        var lines = Files.readAllLines(file);
        var marked = new ArrayList<String>();
        for (int i = 0; i < lines.size(); i++) {
            var t = (ObjectNode) EventCodec.mapper().readTree(lines.get(i));
            if (i == 1 || i == 4) {
                t.put("split", "eval");
            }
            marked.add(EventCodec.mapper().writeValueAsString(t));
        }
        Path withEval = file.resolveSibling("with-eval.jsonl");
        Files.write(withEval, marked);
        Path suite = dir.resolve("s/suite");
        var p = TaskSuite.prepare(suite, withEval.toString(), true, 1, 1, false, true, null);
        assertEquals(6, p.train());
        assertEquals(2, p.heldOut(), "--heldout counts only when the file has no eval task");
        assertEquals(Set.of(read(file).get(1).get("instance_id").asText(), read(file).get(4).get("instance_id").asText()),
                ids(read(suite.resolve("heldout.jsonl"))));
    }

    @Test
    void heldOutZeroKeepsEveryTaskForTraining() throws Exception {
        var p = TaskSuite.prepare(dir.resolve("z/suite"), userFile().toString(), true, 0, 1, false, true, null);
        assertEquals(8, p.train());
        assertEquals(0, p.heldOut());
        assertTrue(p.message().contains("no held-out probes"), p.message());
    }

    @Test
    void aStateFolderKeepsTheTasksOfItsFirstRun() throws Exception {
        Path file = userFile();
        Path suite = dir.resolve("r/suite");
        TaskSuite.prepare(suite, file.toString(), true, 0, 1, false, true, null);
        var again = TaskSuite.prepare(suite, file.toString(), true, 0, 1, false, true, null);
        assertEquals(8, again.train());
        assertNull(again.message(), "nothing new was written");
        Path other = Files.copy(file, file.resolveSibling("other.jsonl"));
        var e = assertThrows(TaskSuite.Refused.class, () -> TaskSuite.prepare(suite, other.toString(), true, 0, 1, false, true, null));
        assertTrue(e.getMessage().contains(file.toAbsolutePath().normalize().toString()) && e.getMessage().contains("another --state"), e.getMessage());
        var count = assertThrows(TaskSuite.Refused.class, () -> TaskSuite.prepare(suite, "64", true, 0, 1, false, true, null));
        assertTrue(count.getMessage().contains("trains on " + file.toAbsolutePath().normalize()), count.getMessage());
        // without --tasks on the command line (its default), a later run goes on with the state's tasks
        assertEquals(8, TaskSuite.prepare(suite, "1024", false, 16, 1, false, true, null).train());
    }

    @Test
    void aCountGeneratesTinySweAndALaterCountChangesNothing() throws Exception {
        Path suite = dir.resolve("g/suite");
        var p = TaskSuite.prepare(suite, "4", true, 2, 1, true, true, null);
        assertEquals("tiny-swe", p.dataset());
        assertEquals(4, p.train());
        assertEquals(2, p.heldOut());
        assertEquals("tiny-swe 4 2 1", Files.readString(suite.resolve(TaskSuite.SOURCE)).strip());
        var again = TaskSuite.prepare(suite, "64", true, 16, 1, true, true, null);
        assertEquals(4, again.train(), "the suite of the first run stays (as before --tasks FILE)");
        assertNull(again.message());
        var file = assertThrows(TaskSuite.Refused.class, () -> TaskSuite.prepare(suite, userFile().toString(), true, 0, 1, false, true, null));
        assertTrue(file.getMessage().contains("trains on tiny-swe 4 2 1"), file.getMessage());
    }

    @Test
    void invalidLinesAreRefusedEachNamedWithItsLineNumber() throws Exception {
        Path file = userFile();
        var lines = new ArrayList<>(Files.readAllLines(file));
        var t = (ObjectNode) EventCodec.mapper().readTree(lines.get(2));
        t.remove("test_command");
        lines.set(2, EventCodec.mapper().writeValueAsString(t));
        lines.set(5, "{not json");
        Files.write(file, lines);
        var e = assertThrows(TaskSuite.Refused.class, () -> TaskSuite.prepare(dir.resolve("i/suite"), file.toString(), true, 0, 1, false, true, null));
        assertTrue(e.getMessage().contains(file + ":3: ") && e.getMessage().contains("test_command"), e.getMessage());
        assertTrue(e.getMessage().contains(file + ":6: "), e.getMessage());
        assertTrue(!Files.exists(dir.resolve("i/suite/train.jsonl")), "nothing written for a refused file");
        var missing = assertThrows(TaskSuite.Refused.class, () -> TaskSuite.prepare(dir.resolve("m/suite"), dir.resolve("nope.jsonl").toString(), true,
                0, 1, false, true, null));
        assertTrue(missing.getMessage().contains("no such file"), missing.getMessage());
    }

    @Test
    void aWarmStartNeedsEveryTrainingTasksGoldPatch() throws Exception {
        Path file = userFile();
        var lines = new ArrayList<>(Files.readAllLines(file));
        var t = (ObjectNode) EventCodec.mapper().readTree(lines.get(0));
        t.remove("patch");
        lines.set(0, EventCodec.mapper().writeValueAsString(t));
        Files.write(file, lines);
        var e = assertThrows(TaskSuite.Refused.class, () -> TaskSuite.prepare(dir.resolve("w/suite"), file.toString(), true, 0, 1, true, true, null));
        assertTrue(e.getMessage().contains("1 training task(s) have none, e.g. " + t.get("instance_id").asText()), e.getMessage());
        assertEquals(8, TaskSuite.prepare(dir.resolve("w2/suite"), file.toString(), true, 0, 1, false, true, null).train(), "RL needs no gold patch");
    }

    @Test
    void workspacesTheRunCannotReachAreRefusedBeforeAnythingStarts() throws Exception {
        Path file = userFile();
        var first = (ObjectNode) EventCodec.mapper().readTree(Files.readAllLines(file).getFirst());
        var mirror = first.deepCopy();
        mirror.remove("workspace");
        mirror.put("repo", "octo/widgets").put("base_commit", "0123456789abcdef0123456789abcdef01234567");
        Path m = dir.resolve("mirror.jsonl");
        Files.writeString(m, EventCodec.mapper().writeValueAsString(mirror) + "\n");
        var none = assertThrows(TaskSuite.Refused.class, () -> TaskSuite.prepare(dir.resolve("a/suite"), m.toString(), true, 0, 1, false, true, null));
        assertTrue(none.getMessage().contains("octo/widgets") && none.getMessage().contains("--mirrors"), none.getMessage());
        Path mirrors = Files.createDirectories(dir.resolve("mirrors"));
        var absent = assertThrows(TaskSuite.Refused.class, () -> TaskSuite.prepare(dir.resolve("b/suite"), m.toString(), true, 0, 1, false, true, mirrors));
        assertTrue(absent.getMessage().contains(mirrors.resolve("octo__widgets").toString()), absent.getMessage());
        Files.createDirectories(mirrors.resolve("octo__widgets"));
        assertEquals(1, TaskSuite.prepare(dir.resolve("c/suite"), m.toString(), true, 0, 1, false, true, mirrors).train());

        var image = first.deepCopy();
        image.putObject("workspace").put("type", "image").put("image", "swebench/sweb.eval.x86_64.octo_1776_widgets-1:latest").put("workdir", "/testbed");
        Path i = dir.resolve("image.jsonl");
        Files.writeString(i, EventCodec.mapper().writeValueAsString(image) + "\n");
        var local = assertThrows(TaskSuite.Refused.class, () -> TaskSuite.prepare(dir.resolve("d/suite"), i.toString(), true, 0, 1, false, true, null));
        assertTrue(local.getMessage().contains("--sandbox kubernetes"), local.getMessage());
        assertEquals(1, TaskSuite.prepare(dir.resolve("e/suite"), i.toString(), true, 0, 1, false, false, null).train());
        // published as it is: an image workspace gets no path, a folder one an absolute path
        var published = TaskSuite.published(Files.readAllLines(dir.resolve("e/suite/train.jsonl")).getFirst(), dir.resolve("e/suite"));
        assertTrue(!published.get("workspace").has("path"), published.toString());
        var tiny = TaskSuite.published("{\"workspace\":{\"type\":\"dir\",\"path\":\"repos/x\"}}", dir.resolve("t"));
        assertEquals(dir.resolve("t/repos/x").toString(), tiny.at("/workspace/path").asText());
    }
}
