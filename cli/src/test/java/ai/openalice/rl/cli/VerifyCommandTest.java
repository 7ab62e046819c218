package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code alice-rl verify} on the example task suite, in real local sandboxes. */
class VerifyCommandTest {
    private static final Path TASKS = Path.of("..", "examples", "tasks", "calc.jsonl").toAbsolutePath().normalize();
    private static final String ROOT = "/tmp/alice-rl-test-cli-" + UUID.randomUUID().toString().substring(0, 8);

    private record Run(int exit, String out, String err) {
        JsonNode json() throws Exception {
            return new ObjectMapper().readTree(out);
        }
    }

    private static Run run(String... args) {
        var out = new StringWriter();
        var err = new StringWriter();
        int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void goldResolvesEmptyDoesNotBothExitZero() throws Exception {
        var gold = run("verify", "--task", TASKS.toString(), "--instance", "example__calc-2", "--gold", "--sandbox-root", ROOT);
        assertEquals(VerifyCommand.VERDICT, gold.exit(), gold.err());
        assertEquals("resolved", gold.json().get("status").asText());
        assertTrue(gold.json().get("resolved").asBoolean());
        assertEquals("passed", gold.json().get("fail_to_pass").get("test_above (tests.test_ops.ClampTest)").asText());
        var empty = run("verify", "--task", TASKS.toString(), "--instance", "example__calc-2", "--empty", "--sandbox-root", ROOT);
        assertEquals(VerifyCommand.VERDICT, empty.exit());
        assertEquals("unresolved", empty.json().get("status").asText());
        assertEquals("failed", empty.json().get("fail_to_pass").get("test_above (tests.test_ops.ClampTest)").asText());
    }

    @Test
    void aPatchFileThatDoesNotApply(@TempDir Path tmp) throws Exception {
        Path patch = Files.writeString(tmp.resolve("bad.diff"), "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n");
        var r = run("verify", "--task", TASKS.toString(), "--instance", "example__calc-1", "--patch", patch.toString(), "--sandbox-root", ROOT);
        assertEquals(VerifyCommand.VERDICT, r.exit(), r.err());
        assertEquals("patch_failed", r.json().get("status").asText());
    }

    @Test
    void badInputNamesTheCause() {
        var several = run("verify", "--task", TASKS.toString(), "--gold");
        assertEquals(VerifyCommand.BAD_INPUT, several.exit());
        assertEquals(TASKS + " holds 2 tasks; choose one with --instance\n", several.err());
        var missing = run("verify", "--task", "/nonexistent.json", "--empty");
        assertEquals(VerifyCommand.BAD_INPUT, missing.exit());
        assertEquals("--task: /nonexistent.json does not exist\n", missing.err());
        var both = run("verify", "--task", TASKS.toString(), "--gold", "--empty");
        assertEquals(2, both.exit());
        assertTrue(both.err().contains("mutually exclusive"), both.err());
    }

    @Test
    void aMavenRepositorySandboxUsersCannotReachIsBadInput() throws Exception {
        Assumptions.assumeTrue(Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid")),
                "only as root do sandboxes run under uids of their own");
        Path home = Files.createTempDirectory(Path.of("/tmp"), "alice-rl-home-");
        Path repo = Files.createDirectories(home.resolve(".m2/repository"));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
        var r = run("verify", "--task", TASKS.toString(), "--instance", "example__calc-1", "--gold", "--maven-repo", repo.toString());
        assertEquals(VerifyCommand.BAD_INPUT, r.exit(), r.out());
        assertTrue(r.err().startsWith("--maven-repo " + repo + ": sandbox users cannot reach it: " + home + " is rwx------"), r.err());
    }
}
