package ai.openalice.rl.trainer.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointRetentionTest {

    @Test
    void theNewestAndTheMilestonesStayTheRestGoes(@TempDir Path root) throws Exception {
        for (long v = 0; v <= 20; v++) {
            Files.createDirectories(root.resolve("v" + v));
            Files.writeString(root.resolve("v" + v).resolve("params.bin"), "x");
        }
        Files.createDirectories(root.resolve("notes"));
        Files.createDirectories(root.resolve("v5x"));
        var writer = new CheckpointWriter(null, root, "bytes", new CheckpointWriter.Retention(3, 10), Optional.empty());

        var gone = new TreeSet<>(writer.prune(20));
        // kept: the newest 3 (18, 19, 20) and the multiples of 10 (0, 10); gone: 1–9 and 11–17
        var expected = new TreeSet<Long>();
        LongStream.rangeClosed(1, 17).filter(v -> v != 10).forEach(expected::add);
        assertEquals(expected, gone);
        var left = new TreeSet<String>();
        try (var s = Files.list(root)) {
            s.forEach(p -> left.add(p.getFileName().toString()));
        }
        assertEquals(new TreeSet<>(List.of("v0", "v10", "v18", "v19", "v20", "notes", "v5x")), left, "other folders are not touched");
        assertEquals(List.of(), writer.prune(20), "nothing more to do");
    }

    @Test
    void theFoldersOfCheckpointsACrashInterruptedAreSweptAtStart(@TempDir Path root) throws Exception {
        for (String d : List.of("v3", "v4.tmp-123456789", "v5.tmp-987", "v6.tmp-x", "notes")) {
            Files.createDirectories(root.resolve(d).resolve("sub"));
            Files.writeString(root.resolve(d).resolve("sub/params.bin"), "x");
        }
        Files.writeString(root.resolve("v7.tmp-1"), "a file, not a checkpoint's folder");
        var writer = new CheckpointWriter(null, root, "bytes", new CheckpointWriter.Retention(3, 10), Optional.empty());
        assertEquals(new TreeSet<>(List.of("v4.tmp-123456789", "v5.tmp-987")), new TreeSet<>(writer.sweepUnfinished()));
        var left = new TreeSet<String>();
        try (var s = Files.list(root)) {
            s.forEach(p -> left.add(p.getFileName().toString()));
        }
        assertEquals(new TreeSet<>(List.of("v3", "v6.tmp-x", "notes", "v7.tmp-1")), left);
        assertEquals(List.of(), new CheckpointWriter(null, root.resolve("absent"), "bytes", new CheckpointWriter.Retention(3, 10), Optional.empty()).sweepUnfinished());
    }

    @Test
    void withoutMilestonesOnlyTheNewestStay() {
        var r = new CheckpointWriter.Retention(1, 0);
        assertTrue(r.prunable(0, 1));
        assertFalse(r.prunable(1, 1));
        assertThrows(IllegalArgumentException.class, () -> new CheckpointWriter.Retention(0, 10));
    }
}
