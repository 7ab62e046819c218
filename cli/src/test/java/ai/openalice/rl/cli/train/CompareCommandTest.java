package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class CompareCommandTest {
    @TempDir
    Path dir;

    private Path episodes(String name, String... taskStatus) throws Exception {
        var sb = new StringBuilder();
        for (int i = 0; i < taskStatus.length; i += 2) {
            sb.append("{\"task\":\"").append(taskStatus[i]).append("\",\"episode\":0,\"status\":\"").append(taskStatus[i + 1])
                    .append("\",\"termination\":\"submitted\"}\n");
        }
        return Files.writeString(dir.resolve(name), sb.toString());
    }

    private record Run(int exit, String out, String err) {}

    private Run run(String... args) {
        var out = new StringWriter();
        var err = new StringWriter();
        var cli = new CommandLine(new CompareCommand()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void theDifferenceIsPairedByTaskOverEveryFileOfASide() throws Exception {
        // base: a 0/2, b 1/2, c 2/2 (two files of one episode per task); new: a 1/2, b 1/2, c 2/2, and d only in new.
        Path base1 = episodes("b1.jsonl", "a", "failed", "b", "resolved", "c", "resolved");
        Path base2 = episodes("b2.jsonl", "a", "failed", "b", "failed", "c", "resolved");
        Path new1 = episodes("n1.jsonl", "a", "resolved", "b", "failed", "c", "resolved", "d", "resolved");
        Path new2 = episodes("n2.jsonl", "a", "failed", "b", "resolved", "c", "resolved");
        Run r = run("--base", base1 + "," + base2, "--new", new1.toString(), "--new", new2.toString());
        assertEquals(0, r.exit(), r.err());
        // Differences 0.5, 0, 0: mean 1/6; sample variance ((1/3)² + 2·(1/6)²) / 2 = 1/12; standard error
        // sqrt(1/12 / 3) = 1/6; half-width 1.96 / 6 = 0.327. Base rates 0, 0.5, 1: mean 0.5, variance 0.25,
        // half-width 1.96 · sqrt(0.25 / 3) = 0.566. New rates 0.5, 0.5, 1: mean 2/3, variance 1/12, 0.327.
        assertTrue(r.out().contains("3 tasks in both (1 in only one side, left out)"), r.out());
        assertTrue(r.out().contains("base: pass@1 0.500 ± 0.566 (6 episodes)"), r.out());
        assertTrue(r.out().contains("new:  pass@1 0.667 ± 0.327 (7 episodes)"), r.out());
        assertTrue(r.out().contains("paired by task: +0.167 ± 0.327 (95%, tasks as the unit): not separated"), r.out());
    }

    @Test
    void aConsistentGainIsCalledBetter() throws Exception {
        // Every task gains exactly 0.5: zero spread, so the interval is 0 and the verdict is clear.
        Path base = episodes("b.jsonl", "a", "failed", "a", "resolved", "b", "failed", "b", "failed");
        Path better = episodes("n.jsonl", "a", "resolved", "a", "resolved", "b", "failed", "b", "resolved");
        Run r = run("--base", base.toString(), "--new", better.toString());
        assertTrue(r.out().contains("+0.500 ± 0.000 (95%, tasks as the unit): better"), r.out());
        Run back = run("--base", better.toString(), "--new", base.toString());
        assertTrue(back.out().contains("-0.500 ± 0.000 (95%, tasks as the unit): worse"), back.out());
    }

    @Test
    void badInputNamesTheFileAndLine() throws Exception {
        Path ok = episodes("ok.jsonl", "a", "resolved", "b", "failed");
        Path broken = Files.writeString(dir.resolve("broken.jsonl"), "{\"task\":\"a\",\"status\":\"resolved\"}\n{\"task\":\"b\"}\n");
        Run r = run("--base", ok.toString(), "--new", broken.toString());
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("broken.jsonl:2: an episode needs \"task\" and \"status\""), r.err());
        Run missing = run("--base", ok.toString(), "--new", dir.resolve("nope.jsonl").toString());
        assertEquals(2, missing.exit());
        assertTrue(missing.err().contains("no such episode file: " + dir.resolve("nope.jsonl")), missing.err());
        Run disjoint = run("--base", ok.toString(), "--new", episodes("other.jsonl", "x", "resolved", "y", "failed").toString());
        assertEquals(2, disjoint.exit());
        assertTrue(disjoint.err().contains("share 0 task(s)"), disjoint.err());
    }
}
