package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SupervisorTest {
    @TempDir
    Path dir;

    @Test
    void aServiceIsNeverGivenAPortAnotherHolds() throws Exception {
        var every = IntStream.rangeClosed(0, 65535).boxed().collect(Collectors.toSet());
        Assertions.assertThrows(IllegalStateException.class, () -> Supervisor.freePort(every),
                "a port already given out is never returned, even when the kernel offers it again");
        int one = Supervisor.freePort(Set.of());
        Assertions.assertNotEquals(one, Supervisor.freePort(Set.of(one)));
    }

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

    @Test
    void aServiceThatExitsWhileStartingIsStartedAgainWithinTheRestartLimit() throws Exception {
        fakeApp();
        Files.writeString(dir.resolve("fail-starts"), "2");
        try (var s = new Supervisor(dir.resolve("root"), dir.resolve("state/logs"), List.of())) {
            s.start("fake", List.of("-Dfake.dir=" + dir));
            s.awaitReady(Duration.ofSeconds(60));
            assertEquals(1, Files.readAllLines(dir.resolve("starts")).size(), "ready on its third start");
            assertEquals(2, s.restarts().get("fake"), "two restarts, counted as later ones are");
        }
        Files.writeString(dir.resolve("fail-starts"), Integer.toString(Supervisor.START_RESTARTS + 1));
        try (var s = new Supervisor(dir.resolve("root"), dir.resolve("state/logs2"), List.of())) {
            s.start("fake", List.of("-Dfake.dir=" + dir));
            var e = assertThrows(IllegalStateException.class, () -> s.awaitReady(Duration.ofSeconds(120)));
            assertTrue(e.getMessage().startsWith("fake exited with status 1 while starting, after 5 restarts"), e.getMessage());
        }
    }

    private void fakeApp() throws Exception {
        Path app = dir.resolve("root/services/fake/target/quarkus-app");
        Files.createDirectories(app);
        var manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, FakeService.class.getName());
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH,
                FakeService.class.getProtectionDomain().getCodeSource().getLocation().toString());
        try (var jar = new JarOutputStream(Files.newOutputStream(app.resolve("quarkus-run.jar")), manifest)) {
            jar.flush();
        }
    }

    @Test
    void aServiceThatSaysItIsNotLiveIsRestartedAfterThreeChecksInARow() throws Exception {
        fakeApp();
        try (var s = new Supervisor(dir.resolve("root"), dir.resolve("state/logs"), List.of())) {
            s.start("fake", List.of("-Dfake.dir=" + dir));
            s.awaitReady(Duration.ofSeconds(60));
            assertEquals(List.of(), s.restartFailed(1, 3), "live");
            Files.createFile(dir.resolve("down"));
            assertEquals(List.of(), s.restartFailed(1, 3), "not live once");
            assertEquals(List.of(), s.restartFailed(1, 3), "not live twice");
            assertEquals(List.of("fake not live for 3 checks in a row (restart 1/1)"), s.restartFailed(1, 3));
            s.awaitReady(Duration.ofSeconds(60));
            assertEquals(2, Files.readAllLines(dir.resolve("starts")).size(), "started again");

            Files.delete(dir.resolve("down"));
            assertEquals(List.of(), s.restartFailed(1, 3));
            Files.createFile(dir.resolve("down"));
            assertEquals(List.of(), s.restartFailed(1, 3), "a live answer started the count again");
            assertEquals(List.of(), s.restartFailed(1, 3));
            var e = assertThrows(IllegalStateException.class, () -> s.restartFailed(1, 3));
            assertTrue(e.getMessage().startsWith("fake not live for 3 checks in a row, after 1 restarts"), e.getMessage());
        }
    }
}
