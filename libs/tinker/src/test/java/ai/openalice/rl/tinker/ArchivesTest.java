package ai.openalice.rl.tinker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A checkpoint archive is unpacked inside its folder or not at all, whatever names it carries. */
class ArchivesTest {
    @TempDir
    Path tmp;

    private Path archive(String... names) throws IOException {
        Path a = tmp.resolve("a.tar.gz");
        try (OutputStream out = Files.newOutputStream(a); var tar = new TarArchiveOutputStream(new GzipCompressorOutputStream(out))) {
            for (String name : names) {
                byte[] body = name.getBytes(StandardCharsets.UTF_8);
                var e = new TarArchiveEntry(name);
                e.setSize(body.length);
                tar.putArchiveEntry(e);
                tar.write(body);
                tar.closeArchiveEntry();
            }
        }
        return a;
    }

    @Test
    void entriesWithALeadingSlashLandInsideTheFolder() throws IOException {
        Path into = Files.createDirectory(tmp.resolve("into"));
        Archives.untarGz(archive("/adapter_config.json", "sub/adapter_model.safetensors"), into);
        assertEquals("/adapter_config.json", Files.readString(into.resolve("adapter_config.json")));
        assertTrue(Files.isRegularFile(into.resolve("sub/adapter_model.safetensors")));
    }

    @Test
    void anEntryClimbingOutOfTheFolderIsRefused() throws IOException {
        Path into = Files.createDirectory(tmp.resolve("into"));
        var e = assertThrows(IOException.class, () -> Archives.untarGz(archive("ok.json", "../escaped.json"), into));
        assertTrue(e.getMessage().contains("outside"), e.getMessage());
        assertTrue(Files.notExists(tmp.resolve("escaped.json")));
    }
}
