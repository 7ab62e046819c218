package ai.openalice.rl.sandbox.shell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The supervisor as a pod runs it: not pid 1 of its pid namespace (the container's command is),
 * started by an exec. Here the namespace is made with {@code unshare} (as root), its pid 1 a
 * {@code sh} that waits, as a pod's {@code sleep infinity} does. Nothing a command leaves behind
 * outlives it, pid 1 and the supervisor survive the sweep, and a command that kills its supervisor
 * ends the stream, which the caller sees as an outcome without an exit status.
 */
class NotPidOneTest {
    Process process;
    Supervisor supervisor;

    @BeforeEach
    void start() throws IOException {
        assumeTrue("root".equals(System.getProperty("user.name")), "unshare --pid needs root");
        process = new ProcessBuilder("unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "sh", "-c",
                "bash -c \"$0\" " + Supervisor.NAME + "; echo pid1-left >&2", Supervisor.LAUNCH).start();
        supervisor = Supervisor.start(new ProcessChannel(process));
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (supervisor != null) {
            supervisor.kill();
        }
    }

    private Supervisor.Outcome run(String command) throws InterruptedException {
        return supervisor.run(command, Duration.ofSeconds(20), 1 << 16);
    }

    @Test
    void whatACommandLeavesBehindIsKilledAndPidOneAndTheSupervisorLive() throws Exception {
        var first = run("echo hi; (sleep 1000 &); setsid sleep 1001 & trap '' HUP TERM; nohup sleep 1002 >/dev/null & echo $$ > /tmp/x; exit 3");
        assertEquals(3, first.exit());
        assertEquals("hi\n", first.out().text());
        for (int round = 0; round < 3; round++) {
            var check = run("grep -l '^sleep$' /proc/[0-9]*/comm 2>/dev/null | wc -l; cat /proc/1/comm; echo $PPID");
            var lines = check.out().text().lines().toList();
            assertEquals(List.of("0", "sh"), lines.subList(0, 2), "nothing left behind, pid 1 alive: " + check.out().text() + check.err().text());
            assertFalse(lines.get(2).equals("1"), "the supervisor is not pid 1 here: " + lines);
        }
        assertTrue(supervisor.alive());
    }

    @Test
    void aCommandThatKillsItsSupervisorEndsTheStream() throws Exception {
        var o = run("echo before; kill -9 $PPID; sleep 5");
        assertNull(o.exit());
        assertFalse(o.timedOut());
        assertEquals("before\n", o.out().text());
        assertFalse(supervisor.alive());
    }
}
