package ai.openalice.rl.runner.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.artifacts.LocalArtifactStore;
import ai.openalice.rl.events.Action;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.events.Turn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a trajectory goes, and a store that will not take it: tried, then said to be the runner's failure. */
class TrajectoryStorageTest {
    static final Trajectory T = new Trajectory(List.of(new Turn(0, List.of(1, 2), List.of(3, 4), List.of(-0.5, -0.25), 1,
            new Action("submit", null, null, false), "Submitted.", 1, 1)));

    @Test
    void smallStaysInlineLargeIsStoredAndAStoreThatFailsIsTriedThenNamed(@TempDir Path dir) throws Exception {
        var store = new LocalArtifactStore(dir.resolve("store"));
        assertInstanceOf(TrajectoryRef.Inline.class, new TrajectoryStorage(store, dir, 1 << 20, Duration.ofMillis(1), () -> false, n -> {})
                .store(UUID.randomUUID(), T));
        var stored = new TrajectoryStorage(store, dir, 10, Duration.ofMillis(1), () -> false, n -> {}).store(UUID.randomUUID(), T);
        assertEquals(T, store.trajectory(stored), "read back as written");

        // a store whose root is a file: every write fails, and not for want of room
        Path notADirectory = Files.writeString(dir.resolve("file"), "x");
        var broken = new TrajectoryStorage(new LocalArtifactStore(notADirectory), dir, 10, Duration.ofMillis(1), () -> false, n -> {});
        UUID id = UUID.randomUUID();
        var e = assertThrows(TrajectoryStorage.NotStored.class, () -> broken.store(id, T));
        assertTrue(e.getMessage().startsWith("the trajectory of " + id + " could not be stored (3 tries): "), e.getMessage());
    }
}
