package ai.openalice.rl.tinker;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/** The engine's checkpoint archives (tar.gz, Apache Commons Compress): regular files only, none outside the folder. */
final class Archives {
    private Archives() {}

    static void untarGz(Path archive, Path into) throws IOException {
        Path root = into.toAbsolutePath().normalize();
        try (InputStream in = Files.newInputStream(archive);
                var tar = new TarArchiveInputStream(new GzipCompressorInputStream(new BufferedInputStream(in)))) {
            TarArchiveEntry e;
            while ((e = tar.getNextEntry()) != null) {
                String name = e.getName().replaceFirst("^/+", "");
                if (name.isEmpty() || e.isDirectory()) {
                    continue;
                }
                if (!e.isFile()) {
                    throw new IOException("the archive holds " + e.getName() + ", which is not a regular file");
                }
                Path target = root.resolve(name).normalize();
                if (!target.startsWith(root)) {
                    throw new IOException("the archive's entry " + e.getName() + " would be written outside " + root);
                }
                Files.createDirectories(target.getParent());
                Files.copy(tar, target);
            }
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
