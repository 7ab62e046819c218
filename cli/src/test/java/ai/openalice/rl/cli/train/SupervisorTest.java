package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SupervisorTest {
    @TempDir
    Path dir;

    @Test
    void aServiceRunsFromACopyThatARebuildInPlaceLeavesAlone() throws Exception {
        Path app = dir.resolve("quarkus-app");
        Files.createDirectories(app.resolve("lib/main"));
        Files.writeString(app.resolve("quarkus-run.jar"), "run v1");
        Files.writeString(app.resolve("lib/main/alice-rl-agent.jar"), "agent v1");
        Files.writeString(app.resolve("lib/main/old-dependency.jar"), "old");
        Supervisor.snapshot(app, dir.resolve("fresh/apps/trainer"));
        assertEquals("run v1", Files.readString(dir.resolve("fresh/apps/trainer/quarkus-run.jar")), "a first copy makes its folders");
        Path copy = dir.resolve("state/apps/trainer");
        Files.createDirectories(copy);
        Files.writeString(copy.resolve("left-over.jar"), "an earlier run's copy");

        Supervisor.snapshot(app, copy);
        // a rebuild writes over the same files (a truncating write keeps the inode a running JVM has open)
        Files.writeString(app.resolve("lib/main/alice-rl-agent.jar"), "agent v2");
        assertEquals("agent v1", Files.readString(copy.resolve("lib/main/alice-rl-agent.jar")));
        assertEquals("run v1", Files.readString(copy.resolve("quarkus-run.jar")));
        assertFalse(Files.exists(copy.resolve("left-over.jar")), "the copy holds only the build it was taken from");

        Files.delete(app.resolve("lib/main/old-dependency.jar"));
        Supervisor.snapshot(app, copy);
        assertEquals("agent v2", Files.readString(copy.resolve("lib/main/alice-rl-agent.jar")));
        assertFalse(Files.exists(copy.resolve("lib/main/old-dependency.jar")));
    }
}
