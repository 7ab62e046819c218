package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.cli.AliceRl;
import ai.openalice.rl.cli.suite.TinySwe;
import ai.openalice.rl.events.EventCodec;
import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.djl.Gpt;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code alice-rl rollout} with an untrained checkpoint: every episode runs, is verified and recorded; nothing is solved. */
class RolloutCommandTest {
    @TempDir
    Path dir;

    private int run(StringWriter out, String... args) {
        return new CommandLine(new AliceRl()).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(out, true)).execute(args);
    }

    @Test
    void anUntrainedCheckpointRunsEveryEpisodeAndSolvesNothing() throws Exception {
        TinySwe.generate(dir.resolve("suite"), 2, 2, 3);
        var config = new GptConfig(new ByteTokenizer().vocabSize(), 2048, 1, 2, 16);
        Path ckpt = dir.resolve("v3");
        Checkpoint.save(ckpt, config, "byte-v1", 3, 30, Gpt.initialise(config, 5).snapshot(), Map.of(), 0);
        Path episodes = dir.resolve("episodes.jsonl");
        var out = new StringWriter();
        int exit = run(out, "rollout", "--checkpoint", ckpt.toString(), "--tasks", dir.resolve("suite/heldout.jsonl").toString(), "--k", "2",
                "--max-tokens-per-turn", "8", "--out", episodes.toString());
        assertEquals(0, exit, out.toString());
        var lines = Files.readAllLines(episodes);
        assertEquals(4, lines.size(), "2 tasks × 2 episodes");
        int turns = 0;
        int unparsable = 0;
        for (String l : lines) {
            var rec = EventCodec.mapper().readTree(l);
            assertEquals("unresolved", rec.get("status").asText(), l);
            assertTrue(rec.at("/trajectory/turns").size() > 0, l);
            for (var t : rec.at("/trajectory/turns")) {
                turns++;
                unparsable += t.at("/action/parseError").isTextual() ? 1 : 0;
            }
        }
        assertTrue(out.toString().contains("turns: " + turns + ", " + unparsable + " unparsable, "), turns + " / " + unparsable + ": " + out);
        assertTrue(out.toString().contains("onnx-in-process v3: 2 tasks x 2 episodes, 0 resolved; pass@1 0.000 ± 0.000"), out.toString());
        assertTrue(out.toString().contains("; episodes: 4, "), out.toString());
    }

    @Test
    void aMissingCheckpointOrTaskFileIsBadInput() throws Exception {
        TinySwe.generate(dir.resolve("suite"), 2, 1, 3);
        var out = new StringWriter();
        assertEquals(2, run(out, "rollout", "--checkpoint", dir.resolve("nope").toString(), "--tasks", dir.resolve("suite/heldout.jsonl").toString()));
        assertTrue(out.toString().startsWith("--checkpoint: "), out.toString());
        var out2 = new StringWriter();
        assertEquals(2, run(out2, "rollout", "--checkpoint", dir.toString(), "--tasks", dir.resolve("none.jsonl").toString()));
        assertTrue(out2.toString().contains("--tasks: "), out2.toString());
    }
}
