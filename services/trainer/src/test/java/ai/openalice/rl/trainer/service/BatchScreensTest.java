package ai.openalice.rl.trainer.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.artifacts.ArtifactStore;
import ai.openalice.rl.artifacts.LocalArtifactStore;
import ai.openalice.rl.events.ArtifactRef;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.trainer.repository.TrainerStore;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which members make their group unusable: a trajectory the artifact store lost (only those the
 * step would read), or one that is there but cannot be trained on — as against a store that cannot
 * be read now, which fails the batch for a later try.
 */
class BatchScreensTest {
    static final ArtifactStore FILES = LocalArtifactStore.reader();

    static TrainerStore.Member member(TrajectoryRef ref, boolean masked, boolean infra) {
        return new TrainerStore.Member(UUID.randomUUID(), UUID.randomUUID(), "t", 1, 2, masked, infra, Termination.SUBMITTED, masked ? null : 1.0,
                masked ? null : 1, null, ref, 0.7);
    }

    @Test
    void aStoredTrajectoryThatIsGoneIsNamedAndNothingElse(@TempDir Path dir) throws Exception {
        Path present = Files.writeString(dir.resolve("present.json"), "{}");
        var here = new TrajectoryRef.Stored(new ArtifactRef(present.toUri().toString(), "0".repeat(64), 2));
        String goneUri = dir.resolve("gone.json").toUri().toString();
        var gone = new TrajectoryRef.Stored(new ArtifactRef(goneUri, "0".repeat(64), 2));
        assertEquals(goneUri, BatchScreens.missingArtifact(FILES, member(gone, false, false)));
        assertNull(BatchScreens.missingArtifact(FILES, member(here, false, false)));
        assertNull(BatchScreens.missingArtifact(FILES, member(gone, true, false)), "a masked member is never read");
        assertNull(BatchScreens.missingArtifact(FILES, member(gone, true, true)), "nor an infrastructure failure");
        assertNull(BatchScreens.missingArtifact(FILES, member(new TrajectoryRef.Inline(new Trajectory(List.of())), false, false)));
    }

    @Test
    void aTrajectoryReplacedOrNotATrajectoryCannotBeTrainedOnAndNamesItsGroup(@TempDir Path dir) throws Exception {
        var store = new LocalArtifactStore(dir);
        var screens = new BatchScreens(null, null, store);
        ArtifactRef good = store.write("a/good.json", "{\"turns\":[]}".getBytes(StandardCharsets.UTF_8));
        assertEquals(List.of(), screens.turns(member(new TrajectoryRef.Stored(good), false, false)), "read and checked");

        Files.writeString(Path.of(URI.create(good.uri())), "{\"TURNS\":[]}"); // replaced after the event named it: same size, another sha256
        var replaced = member(new TrajectoryRef.Stored(good), false, false);
        var e = assertThrows(BatchScreens.UnusableTrajectory.class, () -> screens.turns(replaced));
        assertEquals(replaced.groupId(), e.groupId);
        assertTrue(e.getMessage().contains(replaced.rolloutId() + " cannot be trained on") && e.getMessage().contains("sha256"), e.getMessage());

        ArtifactRef notJson = store.write("a/cut.json", "{\"turns\":[".getBytes(StandardCharsets.UTF_8)); // its own sha256, cut short
        var cut = member(new TrajectoryRef.Stored(notJson), false, false);
        assertEquals(cut.groupId(), assertThrows(BatchScreens.UnusableTrajectory.class, () -> screens.turns(cut)).groupId);
    }

    @Test
    void aStoreThatCannotBeReadNowIsNotTheTrajectorysFault(@TempDir Path dir) throws Exception {
        Path folder = Files.createDirectories(dir.resolve("b/folder.json")); // read() of a directory: an IOException that is no verdict on the bytes
        var ref = new TrajectoryRef.Stored(new ArtifactRef(folder.toUri().toString(), "0".repeat(64), 2));
        var m = member(ref, false, false);
        var e = assertThrows(IllegalStateException.class, () -> new BatchScreens(null, null, LocalArtifactStore.reader()).turns(m));
        assertTrue(e.getMessage().startsWith(m.rolloutId() + ": cannot read"), e.getMessage());
    }
}
