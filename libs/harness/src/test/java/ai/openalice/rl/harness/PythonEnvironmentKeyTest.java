package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.openalice.rl.sandbox.HostCommand;
import ai.openalice.rl.sandbox.WorkspaceSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An environment's key reads a git workspace's set-up files from its tree, and a folder's from its files, alike. */
class PythonEnvironmentKeyTest {
    private static final Duration T = Duration.ofSeconds(30);

    @Test
    void aCommitAndAFolderOfTheSameFilesGiveGitsOwnBlobIds(@TempDir Path tmp) throws Exception {
        Path repo = Files.createDirectories(tmp.resolve("repo"));
        Files.writeString(repo.resolve("setup.py"), "from setuptools import setup\nsetup(name='x')\n");
        Files.writeString(repo.resolve("pyproject.toml"), "[build-system]\nrequires = [\"setuptools\"] # é\n");
        Files.createDirectories(repo.resolve("sub"));
        Files.writeString(repo.resolve("sub/setup.cfg"), "not the root's\n");
        HostCommand.check(List.of("git", "init", "-q"), repo, T);
        HostCommand.check(List.of("git", "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A"), repo, T);
        HostCommand.check(List.of("git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"), repo, T);
        String base = HostCommand.check(List.of("git", "rev-parse", "HEAD"), repo, T).strip();
        // Changed after the commit: the commit's content counts for a git workspace.
        Files.writeString(repo.resolve("setup.py"), "changed\n");

        var fromGit = PythonEnvironments.setupBlobs(new WorkspaceSource.Git(repo, base), null);
        // The reference: git's own ids of the committed files.
        var expected = Map.of("setup.py", HostCommand.check(List.of("git", "rev-parse", base + ":setup.py"), repo, T).strip(),
                "pyproject.toml", HostCommand.check(List.of("git", "rev-parse", base + ":pyproject.toml"), repo, T).strip());
        assertEquals(expected, fromGit);

        Path folder = Files.createDirectories(tmp.resolve("folder"));
        HostCommand.check(List.of("bash", "-c", "git -C \"$0\" archive \"$1\" | tar -x -C \"$2\"", repo.toString(), base, folder.toString()), null, T);
        assertEquals(expected, PythonEnvironments.setupBlobs(new WorkspaceSource.Dir(folder), null));
        assertEquals(HostCommand.check(List.of("git", "hash-object", "setup.py"), repo, T).strip(),
                PythonEnvironments.blobId(Files.readAllBytes(repo.resolve("setup.py"))));
    }
}
