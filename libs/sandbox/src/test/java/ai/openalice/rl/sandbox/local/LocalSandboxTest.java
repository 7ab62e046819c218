package ai.openalice.rl.sandbox.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ai.openalice.rl.sandbox.HostCommand;
import ai.openalice.rl.sandbox.Sandbox;
import ai.openalice.rl.sandbox.SandboxException;
import ai.openalice.rl.sandbox.SandboxFileException;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.WorkspaceSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local backend's contract: workspaces from each source, commands, files, diffs, clean-up. */
class LocalSandboxTest {
    private static final Duration T = Duration.ofSeconds(30);
    @TempDir
    static Path tmp;
    static LocalSandboxProvider provider;

    @BeforeAll
    static void setUp() {
        provider = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(SandboxRoots.fresh("local")));
    }

    @AfterAll
    static void tearDown() {
        provider.close();
    }

    static Path repo(Path dir) throws Exception {
        Files.createDirectories(dir.resolve("pkg"));
        Files.writeString(dir.resolve("pkg/calc.py"), "def add(a, b):\n    return a - b\n");
        Files.writeString(dir.resolve("README"), "calc\n");
        return dir;
    }

    @Test
    void runsCommandsInTheWorkspaceWithACleanEnvironment() throws Exception {
        try (Sandbox s = provider.create(SandboxSpec.of(new WorkspaceSource.Dir(repo(tmp.resolve("r1")))).withEnv(Map.of("TASK", "t1")))) {
            var r = s.exec("pwd; id -u; echo $TASK; echo ${SECRET:-unset}; cat pkg/calc.py | head -1; echo oops >&2; exit 3", T);
            assertEquals(3, r.exitCode());
            assertEquals("/workspace\n1000\nt1\nunset\ndef add(a, b):\n", r.stdout());
            assertEquals("oops\n", r.stderr());
            assertFalse(r.timedOut());
        }
    }

    @Test
    void filesAndDiffAgainstTheBase() throws Exception {
        try (Sandbox s = provider.create(SandboxSpec.of(new WorkspaceSource.Dir(repo(tmp.resolve("r2")))))) {
            s.writeFile("pkg/calc.py", "def add(a, b):\n    return a + b\n");
            s.writeFile("/workspace/new/dir/note.txt", "hello\n");
            assertEquals("hello\n", s.readFile("new/dir/note.txt"));
            assertEquals(Sandbox.FileKind.DIRECTORY, s.stat("new"));
            assertEquals(Sandbox.FileKind.MISSING, s.stat("nope"));
            // The agent's own process can read and change what the host wrote.
            assertTrue(s.exec("echo more >> new/dir/note.txt && rm README", T).ok());
            String diff = s.diff();
            assertTrue(diff.contains("-    return a - b\n+    return a + b\n"), diff);
            assertTrue(diff.contains("+++ b/new/dir/note.txt\n@@ -0,0 +1,2 @@\n+hello\n+more\n"), diff);
            assertTrue(diff.contains("deleted file mode"), diff);
            // The diff applies to a pristine copy and gives the same files.
            Path check = Files.createDirectories(tmp.resolve("apply"));
            Templates.copyTree(tmp.resolve("r2"), check);
            HostCommand.check(List.of("git", "init", "-q"), check, T);
            var applied = HostCommand.run(List.of("git", "apply", "-"), check, T, diff.getBytes());
            assertTrue(applied.ok(), applied.output());
            assertEquals("def add(a, b):\n    return a + b\n", Files.readString(check.resolve("pkg/calc.py")));
            assertFalse(Files.exists(check.resolve("README")));
        }
    }

    @Test
    void gitSourceGivesTheCommitsTreeWithoutItsHistory() throws Exception {
        Path r = repo(tmp.resolve("r3"));
        HostCommand.check(List.of("git", "init", "-q"), r, T);
        HostCommand.check(List.of("git", "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A"), r, T);
        HostCommand.check(List.of("git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"), r, T);
        String base = HostCommand.check(List.of("git", "rev-parse", "HEAD"), r, T).strip();
        Files.writeString(r.resolve("pkg/calc.py"), "def add(a, b):\n    return a + b  # the fix\n");
        HostCommand.check(List.of("git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "fix"), r, T);
        try (Sandbox s = provider.create(SandboxSpec.of(new WorkspaceSource.Git(r, base)))) {
            assertEquals("def add(a, b):\n    return a - b\n", s.readFile("pkg/calc.py"));
            var log = s.exec("git log --all --oneline | wc -l; git log --all -p | grep -c 'the fix' || true", T);
            assertEquals("1\n0\n", log.stdout(), "only the base commit is visible");
            assertEquals("", s.diff());
        }
    }

    @Test
    void oneSupervisorRunsEveryCommandAndATimeoutStartsAFreshOne() throws Exception {
        try (var s = (LocalSandbox) provider.create(SandboxSpec.of(new WorkspaceSource.Dir(repo(tmp.resolve("r7")))))) {
            assertEquals(Set.of(), s.ownPids(), "started at the first command");
            assertEquals("1\n", s.exec("echo $PPID; echo x > /tmp/t", T).stdout(), "the command's parent is the supervisor, pid 1");
            Set<Long> first = s.ownPids();
            assertEquals("x\n", s.exec("cat /tmp/t", T).stdout());
            assertEquals(first, s.ownPids(), "the same processes ran the second command");
            var slow = s.exec("echo kept > w.txt; sleep 30", Duration.ofSeconds(1));
            assertTrue(slow.timedOut());
            var next = s.exec("cat w.txt; cat /tmp/t 2>/dev/null || echo tmp-gone", T);
            assertEquals("kept\ntmp-gone\n", next.stdout(), "the workspace outlives a timeout, /tmp does not");
            assertNotEquals(first, s.ownPids());
        }
    }

    @Test
    void tarballSource() throws Exception {
        Path r = repo(tmp.resolve("r4"));
        Path tar = tmp.resolve("r4.tar.gz");
        HostCommand.check(List.of("tar", "-czf", tar.toString(), "-C", r.toString(), "."), null, T);
        try (Sandbox s = provider.create(SandboxSpec.of(new WorkspaceSource.Tarball(tar)))) {
            assertEquals("calc\n", s.readFile("README"));
        }
    }

    @Test
    void badSourcesAndClosedSandboxesAreInfrastructureErrors() throws Exception {
        var e = assertThrows(SandboxException.class, () -> provider.create(SandboxSpec.of(new WorkspaceSource.Dir(tmp.resolve("missing")))));
        assertEquals(SandboxException.Reason.WORKSPACE_UNAVAILABLE, e.reason());
        var g = assertThrows(SandboxException.class,
                () -> provider.create(SandboxSpec.of(new WorkspaceSource.Git(repo(tmp.resolve("r5")), "deadbeef"))));
        assertEquals(SandboxException.Reason.WORKSPACE_UNAVAILABLE, g.reason());
        Sandbox s = provider.create(SandboxSpec.of(new WorkspaceSource.Empty()));
        s.close();
        s.close();
        assertEquals(SandboxException.Reason.CLOSED, assertThrows(SandboxException.class, () -> s.exec("true", T)).reason());
    }

    @Test
    void fileErrorsAreTheAgentsNotTheSandboxes() throws Exception {
        try (Sandbox s = provider.create(SandboxSpec.of(new WorkspaceSource.Dir(repo(tmp.resolve("r6")))))) {
            assertEquals("nope.txt does not exist", assertThrows(SandboxFileException.class, () -> s.readFile("nope.txt")).getMessage());
            assertEquals("pkg is a directory", assertThrows(SandboxFileException.class, () -> s.readFile("pkg")).getMessage());
            s.exec("printf '\\xff\\xfe' > bin.dat", T);
            assertEquals("bin.dat is not UTF-8 text", assertThrows(SandboxFileException.class, () -> s.readFile("bin.dat")).getMessage());
        }
    }

    @Test
    void janitorRemovesWhatACrashedRunnerLeft() throws Exception {
        Path root = SandboxRoots.fresh("crashed");
        var first = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(root));
        LocalSandbox leaked = (LocalSandbox) first.create(SandboxSpec.of(new WorkspaceSource.Empty()));
        Path dir = leaked.hostWorkspace().getParent();
        // Pretend its owner died: a pid that is not alive, and the lease released.
        Files.writeString(dir.resolve("owner"), "999999999 " + leaked.hostUid() + "\n");
        releaseLeaseOnly(leaked);
        var second = new LocalSandboxProvider(LocalSandboxConfig.defaults().withRoot(root));
        assertFalse(Files.exists(dir), "the janitor removed " + dir);
        second.close();
        first.close();
    }

    @Test
    void providersOnDifferentRootsNeverShareAUid() throws Exception {
        assumeTrue(provider.isRoot(), "uids are per sandbox only as root");
        // A pool of two uids of its own, shared by two providers on different roots (as alice-rl
        // train and an evaluation beside it): a uid's processes are swept by uid after every command.
        var d = LocalSandboxConfig.defaults();
        var a = new LocalSandboxProvider(new LocalSandboxConfig(SandboxRoots.fresh("roots-a"), 250_000, 2, d.workdir(), d.tmpBytes()));
        var b = new LocalSandboxProvider(new LocalSandboxConfig(SandboxRoots.fresh("roots-b"), 250_000, 2, d.workdir(), d.tmpBytes()));
        try (var s1 = (LocalSandbox) a.create(SandboxSpec.of(new WorkspaceSource.Empty()));
                var s2 = (LocalSandbox) b.create(SandboxSpec.of(new WorkspaceSource.Empty()))) {
            assertNotEquals(s1.hostUid(), s2.hostUid());
            var e = assertThrows(SandboxException.class, () -> a.create(SandboxSpec.of(new WorkspaceSource.Empty())));
            assertEquals("START_FAILED: all 2 sandbox uids (250000..250001) are in use on this host", e.getMessage());
        } finally {
            a.close();
            b.close();
        }
    }

    private static void releaseLeaseOnly(LocalSandbox s) throws Exception {
        var f = LocalSandbox.class.getDeclaredField("lease");
        f.setAccessible(true);
        ((UidPool.Lease) f.get(s)).close();
    }
}
