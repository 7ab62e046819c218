package ai.openalice.rl.cli.train;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateFolderTest {
    @Test
    void aSecondRunOnTheMachineGetsItsOwnKafkaPortAndKeepsIt(@TempDir Path dir) throws Exception {
        var out = new PrintWriter(new StringWriter());
        Path a = Files.createDirectories(dir.resolve("a"));
        Path b = Files.createDirectories(dir.resolve("b"));
        int first = new Infra(dir, a, out).kafkaPort();
        try (var held = new ServerSocket()) {
            held.bind(new InetSocketAddress("127.0.0.1", first)); // the first run's broker
            int second = new Infra(dir, b, out).kafkaPort();
            assertTrue(second != first && second + 1 != first, first + " / " + second);
            assertTrue(Files.readString(b.resolve("kafka-port")).strip().equals(Integer.toString(second)));
            assertTrue(new Infra(dir, a, out).kafkaPort() == first, "a state folder keeps its port, taken or not");
        }
    }

    @Test
    void onlyAStateFolderNoRunTrainedInIsFreshForTheBundledWarmStart(@TempDir Path dir) throws Exception {
        assertTrue(TrainCommand.fresh(dir.resolve("new")), "a folder that does not exist yet");
        Path imitating = Files.createDirectories(dir.resolve("imitating/checkpoints/v3")).getParent().getParent();
        assertFalse(TrainCommand.fresh(imitating), "an imitation from scratch that was stopped goes on, it does not switch to the bundled one");
        Path empty = Files.createDirectories(dir.resolve("empty/checkpoints")).getParent();
        assertTrue(TrainCommand.fresh(empty));
        Files.writeString(empty.resolve(TrainCommand.WARM_START_DONE), "none: RL from examples/tiny-swe/warm-start\n");
        assertFalse(TrainCommand.fresh(empty), "RL has begun there");
    }

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
