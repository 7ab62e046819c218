package ai.openalice.rl.trainer.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ai.openalice.rl.artifacts.LocalArtifactStore;
import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.checkpoint.Manifest;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A checkpoint copied to a store standing for the bucket (a folder: the store's own contract is tested against S3 in libs/artifacts). */
class CheckpointUploadTest {
    @Test
    void everyFileAndTheManifestGoUnderTheVersionAndComeBackChecked(@TempDir Path tmp) throws Exception {
        var c = new GptConfig(40, 16, 1, 2, 8);
        var params = new LinkedHashMap<String, float[]>();
        for (String name : c.parameterNames()) {
            float[] v = new float[(int) Arrays.stream(c.shape(name)).reduce(1, (a, b) -> a * b)];
            Arrays.fill(v, 0.01f);
            params.put(name, v);
        }
        Path dir = tmp.resolve("trainer/v7");
        Manifest m = Checkpoint.save(dir, c, "byte-v1", 7, 70, params, Map.of(), 0);
        var bucket = new LocalArtifactStore(tmp.resolve("bucket/checkpoints"));
        var upload = new CheckpointUpload(bucket);

        var refs = upload.upload(dir, 7, m, false);
        var expected = new TreeSet<>(m.files().keySet());
        expected.add(Manifest.FILE_NAME);
        assertEquals(expected, new TreeSet<>(refs.keySet()));
        for (var f : m.files().entrySet()) {
            assertEquals(f.getValue().sha256(), refs.get(f.getKey()).sha256(), "the manifest's sha256 for " + f.getKey());
            assertEquals(tmp.resolve("bucket/checkpoints/v7/" + f.getKey()).toUri().toString(), refs.get(f.getKey()).uri());
        }
        Path fetched = tmp.resolve("cache/v7");
        for (var r : refs.entrySet()) {
            bucket.copyTo(r.getValue(), fetched.resolve(r.getKey()));
        }
        assertEquals(m, Checkpoint.verify(fetched), "the copy is the checkpoint, file for file");

        // announced again after a restart: what is there is not copied again (the trainer's file could even be gone)
        Files.delete(dir.resolve(Checkpoint.ONNX));
        assertEquals(refs, upload.upload(dir, 7, m, true));
        assertThrows(NoSuchFileException.class, () -> upload.upload(dir, 7, m, false));

        assertEquals(List.of(), upload.delete(List.of(7L)));
        assertFalse(Files.exists(tmp.resolve("bucket/checkpoints/v7/" + Manifest.FILE_NAME)));
        assertEquals(Set.of(), Set.copyOf(Files.list(tmp.resolve("bucket/checkpoints/v7")).toList()), "nothing of v7 left");
    }
}
