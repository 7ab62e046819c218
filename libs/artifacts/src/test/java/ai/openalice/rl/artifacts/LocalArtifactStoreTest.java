package ai.openalice.rl.artifacts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.events.ArtifactRef;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalArtifactStoreTest {
    /** FIPS 180-2's first example: SHA-256("abc"). */
    static final String SHA256_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    @TempDir
    Path dir;

    @Test
    void writesAFileUriWithTheSha256AndSizeOfItsBytesAndReadsThemBack() throws Exception {
        var store = new LocalArtifactStore(dir);
        byte[] abc = "abc".getBytes(StandardCharsets.US_ASCII);
        ArtifactRef ref = store.write("trajectories/r1.json", abc);
        assertEquals(new ArtifactRef(dir.resolve("trajectories/r1.json").toUri().toString(), SHA256_ABC, 3), ref);
        assertTrue(store.exists(ref));
        assertArrayEquals(abc, store.read(ref));
        assertEquals(List.of(dir.resolve("trajectories/r1.json")), Files.list(dir.resolve("trajectories")).toList(), "no temporary file left");
        assertArrayEquals(abc, new LocalArtifactStore(dir.resolve("elsewhere")).read(ref), "any replica that sees the folder reads it");
    }

    @Test
    void bytesThatAreNotTheOnesWrittenAreRefusedNamingWhatDiffers() throws Exception {
        var store = new LocalArtifactStore(dir);
        ArtifactRef ref = store.write("t.json", "abc".getBytes(StandardCharsets.US_ASCII));
        Files.writeString(dir.resolve("t.json"), "abd"); // same size, other bytes
        var other = assertThrows(ArtifactCorruptException.class, () -> store.read(ref));
        assertTrue(other.getMessage().contains("its reference says " + SHA256_ABC), other.getMessage());
        Files.writeString(dir.resolve("t.json"), "ab"); // truncated
        var shorter = assertThrows(ArtifactCorruptException.class, () -> store.read(ref));
        assertTrue(shorter.getMessage().contains("has 2 bytes, its reference says 3"), shorter.getMessage());
        store.delete(ref);
        assertFalse(store.exists(ref));
        assertThrows(NoSuchFileException.class, () -> store.read(ref), "gone is not corrupt: the caller tells the two apart");
        store.delete(ref); // already gone: nothing
    }

    @Test
    void aKeyMustStayInsideTheStoreAndAReferenceMustBeAFile() {
        var store = new LocalArtifactStore(dir);
        assertThrows(IllegalArgumentException.class, () -> store.write("../escape.json", new byte[1]));
        assertThrows(IllegalArgumentException.class, () -> store.write("", new byte[1]));
        var s3 = new ArtifactRef("s3://bucket/t.json", SHA256_ABC, 3);
        assertThrows(IllegalArgumentException.class, () -> store.read(s3));
    }

    /** Kept 7 days at noon on the 10th: the artifact of the 2nd (8 days) goes, those of the 4th and the 9th stay; a subfolder is left alone. */
    @Test
    void pruneDeletesWhatIsOlderThanTheWindowAndNothingElse() throws Exception {
        var store = new LocalArtifactStore(dir);
        Instant now = Instant.parse("2026-12-10T12:00:00Z");
        Path old = aged(store.write("t/a.json", new byte[1000]), Instant.parse("2026-12-02T12:00:00Z"));
        Path edge = aged(store.write("t/b.json", new byte[10]), Instant.parse("2026-12-04T12:00:00Z"));
        Path fresh = aged(store.write("t/c.json", new byte[10]), Instant.parse("2026-12-09T12:00:00Z"));
        Path nested = aged(store.write("t/sub/d.json", new byte[10]), Instant.parse("2026-11-01T00:00:00Z"));
        assertEquals(new ArtifactStore.Pruned(1, 1000), store.prune("t", Duration.ofDays(7), now));
        assertFalse(Files.exists(old));
        assertTrue(Files.exists(edge) && Files.exists(fresh) && Files.exists(nested));
        assertEquals(new ArtifactStore.Pruned(0, 0), store.prune("none", Duration.ofDays(7), now));
    }

    private static Path aged(ArtifactRef ref, Instant modified) throws Exception {
        Path f = LocalArtifactStore.path(ref);
        Files.setLastModifiedTime(f, FileTime.from(modified));
        return f;
    }

    /** A file in and a file out, streamed: the same reference as for its bytes; a copy that does not match is refused and the target kept. */
    @Test
    void filesGoInAndOutStreamedAndCheckedAlike() throws Exception {
        var store = new LocalArtifactStore(dir.resolve("store"));
        Path source = Files.writeString(dir.resolve("weights.bin"), "abc");
        ArtifactRef ref = store.write("checkpoints/v1/weights.bin", source);
        assertEquals(new ArtifactRef(dir.resolve("store/checkpoints/v1/weights.bin").toUri().toString(), SHA256_ABC, 3), ref);
        Path target = dir.resolve("cache/v1/weights.bin");
        store.copyTo(ref, target);
        assertEquals("abc", Files.readString(target));
        Files.writeString(dir.resolve("store/checkpoints/v1/weights.bin"), "abd");
        assertThrows(ArtifactCorruptException.class, () -> store.copyTo(ref, target));
        assertEquals("abc", Files.readString(target), "the earlier copy is kept");
        assertEquals(List.of(target), Files.list(target.getParent()).toList(), "no temporary file left");
        assertEquals(new ArtifactStore.Pruned(1, 3), store.deleteAll("checkpoints/v1"));
    }
}
