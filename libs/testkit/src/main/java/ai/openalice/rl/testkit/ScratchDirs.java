package ai.openalice.rl.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/**
 * Scratch folders for what a test class holds in static fields (a model exported once for a
 * Quarkus test profile), where JUnit's {@code @TempDir} cannot reach: removed when the test JVM
 * exits. A copy of SmolLM2 is 1.1 GB, and every run of the suite used to leave one behind in /tmp.
 */
public final class ScratchDirs {
    private ScratchDirs() {}

    /** A new folder under the system's temporary folder, named {@code prefix…}, deleted with all it holds at exit. */
    public static Path create(String prefix) {
        try {
            Path dir = Files.createTempDirectory(prefix);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir), "delete " + dir));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void delete(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // gone already, or unreadable: nothing more to do at exit
        }
    }
}
