package ai.openalice.rl.servicekit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArtifactRetentionTest {
    /** Kept 7 days at noon on the 10th: the file of the 2nd (8 days) goes, those of the 4th and the 9th stay; a subfolder is left alone. */
    @Test
    void filesOlderThanTheWindowGoAndNothingElse(@TempDir Path dir) throws Exception {
        Instant now = Instant.parse("2026-12-10T12:00:00Z");
        Path old = write(dir.resolve("a.json"), 1000, Instant.parse("2026-12-02T12:00:00Z"));
        Path edge = write(dir.resolve("b.json"), 10, Instant.parse("2026-12-04T12:00:00Z"));
        Path fresh = write(dir.resolve("c.json"), 10, Instant.parse("2026-12-09T12:00:00Z"));
        Files.createDirectories(dir.resolve("sub"));
        Path nested = write(dir.resolve("sub/d.json"), 10, Instant.parse("2026-11-01T00:00:00Z"));
        assertEquals(new ArtifactRetention.Pruned(1, 1000), ArtifactRetention.prune(dir, Duration.ofDays(7), now));
        assertFalse(Files.exists(old));
        assertTrue(Files.exists(edge) && Files.exists(fresh) && Files.exists(nested));
        assertEquals(new ArtifactRetention.Pruned(0, 0), ArtifactRetention.prune(dir.resolve("none"), Duration.ofDays(7), now));
    }

    private static Path write(Path f, int bytes, Instant modified) throws Exception {
        Files.write(f, new byte[bytes]);
        Files.setLastModifiedTime(f, FileTime.from(modified));
        return f;
    }
}
