package ai.openalice.rl.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A mounted folder behind an owner-only folder, or itself owner-only, is named with the folder that blocks; a readable one passes. */
class SandboxReadableTest {
    @Test
    void namesTheFolderThatBlocks() throws Exception {
        // under /tmp (1777), whose parents every user may enter, unlike a temp folder under a 0700 home
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "alice-rl-readable-");
        Path home = Files.createDirectories(dir.resolve("home"));
        Path repo = Files.createDirectories(home.resolve("m2"));
        Path open = Files.createDirectories(dir.resolve("open"));
        Path closed = Files.createDirectories(dir.resolve("closed"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
        Files.setPosixFilePermissions(repo, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(closed, PosixFilePermissions.fromString("rwxr-x---"));
        assertEquals(List.of(), SandboxReadable.check(Map.of("--maven-home", open)));
        List<String> problems = SandboxReadable.check(Map.of("--maven-repo", repo));
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.getFirst().startsWith("--maven-repo " + repo + ": sandbox users cannot reach it: " + home + " is rwx------"), problems.getFirst());
        assertTrue(SandboxReadable.check(Map.of("--npm-cache", closed)).getFirst().contains("not readable by sandbox users (rwxr-x---)"));
        assertEquals("--mirrors " + dir.resolve("absent") + ": not a folder", SandboxReadable.check(Map.of("--mirrors", dir.resolve("absent"))).getFirst());
        try (var all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
