package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;

class StateFolderTest {
    @Test
    void aStateFolderUnderAPrivateDirectoryIsRefusedWithTheDirectoryNamed() throws Exception {
        Path base = Files.createTempDirectory("alice-state"); // rwx------, as mktemp makes it
        try {
            Path state = Files.createDirectories(base.resolve("run"));
            String why = TrainCommand.unreachableBySandboxes(state);
            assertTrue(why != null && why.contains(base + " has mode rwx------") && why.contains("chmod o+x " + base), String.valueOf(why));
            Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-x--x"));
            assertNull(TrainCommand.unreachableBySandboxes(state));
        } finally {
            Files.deleteIfExists(base.resolve("run"));
            Files.deleteIfExists(base);
        }
    }
}
