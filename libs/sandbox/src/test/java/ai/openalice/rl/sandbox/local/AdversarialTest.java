package ai.openalice.rl.sandbox.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.openalice.rl.sandbox.ExecResult;
import ai.openalice.rl.sandbox.PathEscapeException;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxLimits;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What an agent might do to escape or hurt the host. Each attack must be contained with a clear
 * result, and the host and the other sandboxes stay healthy (checked after each attack).
 */
class AdversarialTest {
    private static final long MiB = SandboxLimits.MiB;
    private static final SandboxLimits TIGHT = SandboxLimits.defaults().withProcesses(64).withAddressSpace(512 * MiB)
            .withWorkspaceBytes(32 * MiB).withFileSize(16 * MiB).withOutputBytes(16 * 1024);
    static Path root;
    static LocalSandboxProvider provider;
    Sandbox sandbox;

    @BeforeAll
    static void setUp() {
        root = SandboxRoots.fresh("adversarial");
        provider = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(root));
    }

    @AfterAll
    static void tearDown() {
        provider.close();
        Templates.deleteQuietly(root);
    }

    @BeforeEach
    void create() {
        sandbox = provider.create(SandboxSpec.of(new WorkspaceSource.Empty()).withLimits(TIGHT));
    }

    @AfterEach
    void healthy() {
        // The attacked sandbox still answers, and a fresh one works.
        ExecResult after = sandbox.exec("echo alive", Duration.ofSeconds(20));
        assertEquals("alive\n", after.stdout(), after.toString());
        int uid = ((LocalSandbox) sandbox).hostUid();
        sandbox.close();
        if (provider.isRoot()) {
            assertEquals(List.of(), HostProcesses.pidsOf(uid), "no process of the sandbox survives close");
        }
        try (Sandbox other = provider.create(SandboxSpec.of(new WorkspaceSource.Empty()))) {
            assertEquals("ok\n", other.exec("echo ok", Duration.ofSeconds(20)).stdout());
        }
    }

    private ExecResult run(String cmd, int seconds) {
        return sandbox.exec(cmd, Duration.ofSeconds(seconds));
    }

    @Test
    void noNetworkNeitherLoopbackServicesOfTheHostNorOutside() throws Exception {
        // PostgreSQL listens on the host's 127.0.0.1:5432; the host's own eth0 address is 'outside' for the sandbox.
        var r = run("for a in 127.0.0.1/5432 192.0.2.2/22; do (exec 3<>/dev/tcp/${a%/*}/${a#*/}) 2>/dev/null && echo open $a || echo closed $a; done;"
                + " tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '", 20);
        assertEquals("closed 127.0.0.1/5432\nclosed 192.0.2.2/22\nlo\n", r.stdout(), r.toString());
    }

    @Test
    void forkBombIsCappedAndKilledAtTheTimeout() {
        assumeTrue(provider.isRoot(), "the per-sandbox process limit needs root (a uid per sandbox)");
        // Another sandbox keeps working while the bomb goes off.
        CompletableFuture<ExecResult> neighbour = CompletableFuture.supplyAsync(() -> {
            try (Sandbox other = provider.create(SandboxSpec.of(new WorkspaceSource.Empty()))) {
                return other.exec("sleep 1; echo neighbour fine", Duration.ofSeconds(30));
            }
        });
        var r = run("bomb() { bomb | bomb & }; bomb; sleep 30", 5);
        assertTrue(r.timedOut(), r.toString());
        assertTrue(r.stderr().contains("fork: retry") || r.stderr().contains("Resource temporarily unavailable"), r.stderr());
        assertEquals("neighbour fine\n", neighbour.join().stdout());
    }

    @Test
    void memoryBombFailsToAllocate() {
        var r = run("python3 -c 'a = bytearray(4 * 1024**3); print(len(a))'", 30);
        assertNotEquals(0, r.exitCode());
        assertTrue(r.stderr().contains("MemoryError"), r.stderr());
    }

    @Test
    void fillingTheDiskStopsAtTheQuota() {
        assumeTrue(provider.isRoot(), "the workspace quota is a tmpfs mount, which needs root");
        var r = run("for i in 1 2 3 4; do head -c 12M /dev/zero > f$i || echo stopped at $i; done; du -sm . | cut -f1", 30);
        assertTrue(r.stdout().contains("stopped at 3"), r.toString());
        assertTrue(r.stderr().contains("No space left on device"), r.stderr());
        var big = run("head -c 20M /dev/zero > /workspace/one-big-file; echo rc=$?", 30);
        assertTrue(big.stdout().contains("rc=1") || big.stdout().contains("rc=153"), big.toString()); // ENOSPC or SIGXFSZ
        run("rm -f f* one-big-file", 10);
    }

    @Test
    void endlessOutputIsCappedHeadAndTail() {
        var r = run("seq 1 1000000000000", 3); // endless in practice: this machine prints 10^8 lines in under 3 s
        assertTrue(r.timedOut());
        assertTrue(r.stdoutTruncated());
        assertTrue(r.stdout().startsWith("1\n2\n3\n"), r.stdout().substring(0, 20));
        assertTrue(r.stdout().contains("bytes of output omitted"));
        assertTrue(r.stdout().length() < 17 * 1024, "kept output is bounded: " + r.stdout().length());
    }

    @Test
    void sleepForeverIsKilledAtTheTimeout() {
        var r = run("sleep infinity", 1);
        assertTrue(r.timedOut());
        assertEquals(-1, r.exitCode());
        assertTrue(r.duration().toMillis() < 15_000, r.duration().toString());
    }

    @Test
    void detachedChildrenDieWithTheCommand() {
        // Repeating makes a race between the command's end and the sweep visible.
        var local = (LocalSandbox) sandbox;
        for (int i = 0; i < 20; i++) {
            var r = run("setsid sleep 1000 > /dev/null 2>&1 < /dev/null & disown; nohup sleep 1000 >/dev/null 2>&1 & "
                    + "(trap '' HUP TERM; sleep 1000 &) ; echo started", 10);
            assertEquals("started\n", r.stdout());
            if (provider.isRoot()) {
                // Only the sandbox's own bubblewrap and supervisor are left of its uid.
                var left = HostProcesses.pidsOf(local.hostUid());
                left.removeAll(local.ownPids());
                assertEquals(List.of(), left, "detached processes were reaped, round " + i);
                assertEquals(2, local.ownPids().size(), "bubblewrap and its supervisor");
            }
        }
        assertEquals("0\n", run("pgrep -c sleep || true", 10).stdout());
    }

    @Test
    void signallingTheSupervisorChangesNothing() {
        // The supervisor is pid 1 of the sandbox: signals from inside are dropped, or (SIGINT, which
        // bash handles) leave it waiting for the command; a stopped command is resumed; a command
        // that signals its own process group ends alone.
        assertEquals("42\n", run("echo $((6 * 7)) > /tmp/kept; cat /tmp/kept", 10).stdout());
        var local = (LocalSandbox) sandbox;
        var pids = local.ownPids();
        var r = run("for s in INT TERM HUP QUIT USR1 PIPE CHLD KILL STOP; do kill -$s 1; done; kill -STOP $$; echo went on", 10);
        assertEquals("went on\n", r.stdout(), r.toString());
        run("kill -INT 0; kill -TERM 0; echo maybe reached", 10);
        assertEquals("42\n", run("cat /tmp/kept", 10).stdout(), "the same supervisor (its /tmp) answered");
        assertEquals(pids, local.ownPids());
        // Whatever the service inherited (started in a shell's background it ignores SIGINT and
        // SIGQUIT), a command starts with neither ignored (bits 1 and 2 of the mask).
        String ignored = run("grep SigIgn /proc/self/status", 10).stdout();
        assertEquals(0, Long.parseLong(ignored.substring(ignored.indexOf('\t') + 1).strip(), 16) & 0b110, ignored);
    }

    @Test
    void aForgedEndOfOutputIsOutputLikeAnyOther() {
        // The marker that ends a command's output is NUL and a fresh random token: NULs and
        // look-alikes in the output are passed through.
        var r = run("printf 'a\\0b\\0\\0%032d 0\\nc'; printf 'x\\0' >&2; exit 5", 10);
        assertEquals(5, r.exitCode());
        assertEquals("a\0b\0\0" + "0".repeat(32) + " 0\nc", r.stdout());
        assertEquals("x\0", r.stderr());
    }

    @Test
    void writingOutsideTheWorkspaceFails() {
        var r = run("for f in /usr/evil /etc/evil /evil /proc/evil; do echo x > $f 2>/dev/null && echo wrote $f; done; echo done", 10);
        assertEquals("done\n", r.stdout());
        assertFalse(Files.exists(Path.of("/usr/evil")));
        assertFalse(Files.exists(Path.of("/etc/evil")));
        // /tmp inside is private to the sandbox.
        run("echo secret > /tmp/inside", 10);
        assertFalse(Files.exists(Path.of("/tmp/inside")));
    }

    @Test
    void hostFilesAreNotReadable() {
        var r = run("cat /etc/shadow 2>&1 | head -1; ls /root /work /home 2>&1 | head -3; cat /proc/1/cmdline | tr '\\0' ' '", 10);
        assertTrue(r.stdout().contains("Permission denied") || r.stdout().contains("No such file"), r.stdout());
        assertTrue(r.stdout().contains("ls: cannot access '/root'"), r.stdout());
        assertTrue(r.stdout().contains("alice-rl-supervisor"), "pid 1 is the sandbox's own supervisor, not the host's init: " + r.stdout());
    }

    @Test
    void fileEditorEscapesAreRefused() {
        run("ln -s /etc/passwd passwd-link; ln -s / rootfs; ln -s .. up; mkdir -p sub", 10);
        assertThrows(PathEscapeException.class, () -> sandbox.readFile("passwd-link"));
        assertThrows(PathEscapeException.class, () -> sandbox.readFile("rootfs/etc/passwd"));
        assertThrows(PathEscapeException.class, () -> sandbox.writeFile("rootfs/tmp/evil", "x"));
        assertThrows(PathEscapeException.class, () -> sandbox.writeFile("up/evil", "x"));
        assertThrows(PathEscapeException.class, () -> sandbox.writeFile("../evil", "x"));
        assertThrows(PathEscapeException.class, () -> sandbox.readFile("sub/../../etc/passwd"));
        var abs = assertThrows(PathEscapeException.class, () -> sandbox.readFile("/etc/passwd"));
        assertEquals("/etc/passwd is outside the workspace; use a path under /workspace or a relative one", abs.getMessage());
        assertFalse(Files.exists(Path.of("/tmp/evil")));
    }

    @Test
    void killingTheParentIsIgnoredAndTheSandboxStaysInCharge() {
        // The parent is the sandbox's own init (pid 1 of its pid namespace): signals from inside
        // are dropped, so the attack changes nothing — the command goes on and its timeout still holds.
        var r = run("kill -9 $PPID; kill -9 1; echo survived; sleep 60", 2);
        assertEquals("survived\n", r.stdout(), r.toString());
        assertTrue(r.timedOut());
    }
}
