package ai.openalice.rl.trainer.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import ai.openalice.rl.artifacts.ArtifactStore;
import ai.openalice.rl.artifacts.LocalArtifactStore;
import ai.openalice.rl.events.ArtifactRef;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.trainer.repository.TrainerStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which members make their group unusable when the artifact store lost their trajectory: only those the step would read. */
class MissingArtifactTest {
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
        assertEquals(goneUri, TrainingLoop.missingArtifact(FILES, member(gone, false, false)));
        assertNull(TrainingLoop.missingArtifact(FILES, member(here, false, false)));
        assertNull(TrainingLoop.missingArtifact(FILES, member(gone, true, false)), "a masked member is never read");
        assertNull(TrainingLoop.missingArtifact(FILES, member(gone, true, true)), "nor an infrastructure failure");
        assertNull(TrainingLoop.missingArtifact(FILES, member(new TrajectoryRef.Inline(new Trajectory(List.of())), false, false)));
    }
}
