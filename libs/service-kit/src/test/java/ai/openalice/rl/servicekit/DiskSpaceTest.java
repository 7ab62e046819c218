package ai.openalice.rl.servicekit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskSpaceTest {
    @TempDir
    Path dir;

    @Test
    void aVolumeUnderItsMinimumPausesUntilThereIsRoom() throws Exception {
        var looks = new AtomicInteger();
        // two looks find 10 bytes free, then 1000: the minimum is 100
        var disk = new DiskSpace(List.of(dir), 100, p -> looks.incrementAndGet() <= 2 ? 10 : 1000);
        assertEquals(dir, disk.full());
        assertTrue(disk.awaitRoom("test", () -> false));
        assertFalse(disk.paused(), "room again");
        assertTrue(looks.get() >= 3);

        var never = new DiskSpace(List.of(dir), 100, p -> 10);
        assertFalse(never.awaitRoom("test", () -> true), "a stopping service does not wait");
        assertTrue(never.paused(), "said while it lasts");
        assertEquals(null, new DiskSpace(List.of(dir), 100, p -> 100).full(), "the minimum itself is room enough");
    }

    @Test
    void sizesAreSaidAsPeopleReadThem() {
        assertEquals("512 B", DiskSpace.bytes(512));
        assertEquals("1.5 KiB", DiskSpace.bytes(1536));
        assertEquals("3.0 GiB", DiskSpace.bytes(3L << 30));
    }

    /**
     * On a real full volume (a 256 KiB tmpfs mounted for the test: root only, as the sandboxes'
     * workspace quota): the second 160 KiB write meets ENOSPC, waits, and is written whole once the
     * first file is deleted; a write that cannot wait fails naming the file and the room left.
     */
    @Test
    void aFullVolumeIsWaitedOutAndOtherwiseNamed() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mounting a size-limited tmpfs needs root");
        Path vol = Files.createDirectories(dir.resolve("vol"));
        mount("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", vol.toString());
        try {
            byte[] big = new byte[160 * 1024];
            Arrays.fill(big, (byte) 7);
            assertEquals(0, DiskSpace.writeWaitingForRoom(vol.resolve("a.json"), big, "a trajectory", () -> false));
            var e = assertThrows(UncheckedIOException.class, () -> DiskSpace.writeWaitingForRoom(vol.resolve("b.json"), big, "a trajectory", () -> true));
            assertTrue(DiskSpace.noSpace(e.getCause()), e.getMessage());
            assertTrue(e.getMessage().startsWith("cannot write a trajectory to " + vol.resolve("b.json")) && e.getMessage().contains("free of 256.0 KiB"),
                    e.getMessage());
            assertFalse(Files.exists(vol.resolve("b.json")), "no partial file left");

            var freed = CompletableFuture.runAsync(() -> {
                try {
                    Thread.sleep(1500);
                    Files.delete(vol.resolve("a.json"));
                } catch (Exception x) {
                    throw new IllegalStateException(x);
                }
            });
            int waits = DiskSpace.writeWaitingForRoom(vol.resolve("b.json"), big, "a trajectory", () -> false);
            freed.join();
            assertTrue(waits >= 1, "it met the full volume first");
            assertArrayEquals(big, Files.readAllBytes(vol.resolve("b.json")), "then wrote it whole");
        } finally {
            mount("umount", vol.toString());
        }
    }

    private static void mount(String... cmd) throws Exception {
        var p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), String.join(" ", cmd) + ": " + out);
    }
}
