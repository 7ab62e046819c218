package ai.openalice.rl.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./alice-rl} as a person runs it prints nothing of the JVM's own: reading a dataset loads
 * DuckDB's native library, which the JVM warns about unless the launcher enables native access
 * (three {@code WARNING:} lines on every such command before it did). Runs the launcher on the
 * command line the build has packaged, after the command line's module.
 */
class LauncherOutputIT {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    @Test
    void readingADatasetPrintsNoJvmWarning() throws Exception {
        Path csv = dir.resolve("rows.csv");
        Files.writeString(csv, "instance_id,repo,base_commit,problem_statement,patch,test_patch,F2P,P2P,language\n"
                + "acme__w-1,acme/w,0123456789abcdef0123456789abcdef01234567,p,,,\"['T.a']\",\"[]\",Java\n");
        var pb = new ProcessBuilder(List.of("bash", ROOT.resolve("alice-rl").toString(), "tasks", "import", "--from", "swe-polybench",
                csv.toString(), "--out", dir.resolve("tasks.jsonl").toString())).redirectError(dir.resolve("err").toFile())
                .redirectOutput(dir.resolve("out").toFile());
        Process p = pb.start();
        assertTrue(p.waitFor(10, TimeUnit.MINUTES), "the launcher did not finish");
        String err = Files.readString(dir.resolve("err"));
        assertEquals(0, p.exitValue(), Files.readString(dir.resolve("out")) + err);
        assertTrue(Files.readString(dir.resolve("out")).contains("1 imported"), Files.readString(dir.resolve("out")));
        assertTrue(err.lines().noneMatch(l -> l.startsWith("WARNING:")), "standard error:\n" + err);
    }
}
