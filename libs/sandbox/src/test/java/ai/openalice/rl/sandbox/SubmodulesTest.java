package ai.openalice.rl.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A mirror's submodules filled from the mirrors beside it, as SWE-bench's images have astropy's
 * astropy_helpers checked out: a gitlink whose URL names a mirror here gets that mirror's files at
 * the gitlink's commit (not the mirror's newest); one with no mirror stays an empty folder.
 */
class SubmodulesTest {
    @TempDir
    Path dir;

    @Test
    void aGitlinkIsFilledFromTheMirrorItsUrlNames() throws Exception {
        Path mirrors = dir.resolve("mirrors");
        Path helpers = mirrors.resolve("acme__helpers");
        git(dir, "init", "-q", helpers.toString());
        Files.writeString(helpers.resolve("helper.py"), "VERSION = 1\n");
        commit(helpers);
        String pinned = git(helpers, "rev-parse", "HEAD").strip();
        Files.writeString(helpers.resolve("helper.py"), "VERSION = 2\n");
        commit(helpers);

        Path project = mirrors.resolve("acme__project");
        git(dir, "init", "-q", project.toString());
        Files.writeString(project.resolve(".gitmodules"), "[submodule \"helpers\"]\n\tpath = vendor/helpers\n\turl = https://github.com/acme/helpers.git\n"
                + "[submodule \"gone\"]\n\tpath = gone\n\turl = git@github.com:acme/gone.git\n");
        git(project, "update-index", "--add", "--cacheinfo", "160000," + pinned + ",vendor/helpers");
        git(project, "update-index", "--add", "--cacheinfo", "160000," + pinned + ",gone");
        git(project, "add", ".gitmodules");
        git(project, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "with submodules");
        String base = git(project, "rev-parse", "HEAD").strip();

        var links = Submodules.of(project, base);
        assertEquals(2, links.size(), links.toString());
        assertEquals(helpers.toAbsolutePath(), links.getFirst().mirror());
        assertNull(links.get(1).mirror(), "no mirror of acme/gone here");
        Path tree = dir.resolve("tree");
        Files.createDirectories(tree);
        Submodules.fill(project, base, tree);
        assertEquals("VERSION = 1\n", Files.readString(tree.resolve("vendor/helpers/helper.py")), "the gitlink's commit, not the mirror's newest");
        assertTrue(Files.notExists(tree.resolve("gone/helper.py")));
    }

    private static void commit(Path repo) throws Exception {
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "c");
    }

    private static String git(Path dir, String... args) throws Exception {
        var cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        return HostCommand.check(cmd, null, Duration.ofMinutes(1));
    }
}
