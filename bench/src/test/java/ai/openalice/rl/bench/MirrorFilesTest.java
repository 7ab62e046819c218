package ai.openalice.rl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A mirror that lacks a blob its commit names, as a snapshot brought without its largest files does. */
class MirrorFilesTest {

    static String git(Path repo, String... args) throws Exception {
        var cmd = new ArrayList<>(List.of("git", "-C", repo.toString(), "-c", "user.name=t", "-c", "user.email=t@t"));
        cmd.addAll(List.of(args));
        var p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertEquals(0, p.waitFor(), out);
        return out;
    }

    @Test
    void aMissingBlobIsNamedWithItsPathAndAWholeMirrorPasses(@TempDir Path repo) throws Exception {
        git(repo, "init", "-q");
        Files.createDirectories(repo.resolve("data"));
        Files.writeString(repo.resolve("small.txt"), "kept\n");
        Files.writeString(repo.resolve("data/big table.dat"), "left out of the snapshot\n");
        git(repo, "add", "-A");
        git(repo, "commit", "-q", "-m", "base");
        String commit = git(repo, "rev-parse", "HEAD");
        assertNull(MirrorFiles.missing(repo, commit));

        String blob = git(repo, "rev-parse", "HEAD:data/big table.dat");
        Files.delete(repo.resolve(".git/objects/" + blob.substring(0, 2) + "/" + blob.substring(2)));
        String why = MirrorFiles.missing(repo, commit);
        assertTrue(why != null && why.contains("names data/big table.dat (blob " + blob + ")"), why);
    }
}
