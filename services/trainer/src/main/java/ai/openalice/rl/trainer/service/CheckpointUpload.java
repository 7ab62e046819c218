package ai.openalice.rl.trainer.service;

import ai.openalice.rl.artifacts.ArtifactStore;
import ai.openalice.rl.events.ArtifactRef;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.checkpoint.Manifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A checkpoint's folder copied to the bucket ({@code alice.artifacts.bucket}) as
 * {@code checkpoints/v<N>/<file>}, for an inference service that does not mount the trainer's
 * volume. The trainer resumes from its own folder; the bucket holds what the event announces.
 * The manifest goes last: a reader that finds it finds every file it lists.
 */
final class CheckpointUpload {
    private final ArtifactStore bucket;

    CheckpointUpload(ArtifactStore bucket) {
        this.bucket = bucket;
    }

    /**
     * Copies the files of {@code dir} (checkpoint {@code version}, manifest {@code m}) and returns
     * the reference of each, by file name. {@code reuse}: a file already there under the sha256 the
     * manifest gives is not copied again (announcing a registered checkpoint again after a restart).
     */
    Map<String, ArtifactRef> upload(Path dir, long version, Manifest m, boolean reuse) throws IOException {
        var refs = new LinkedHashMap<String, ArtifactRef>();
        for (var f : m.files().entrySet()) {
            String key = "v" + version + "/" + f.getKey();
            ArtifactRef there = bucket.refOf(key, f.getValue().sha256(), f.getValue().bytes());
            refs.put(f.getKey(), reuse && bucket.exists(there) ? there : bucket.write(key, dir.resolve(f.getKey())));
        }
        Path manifest = dir.resolve(Manifest.FILE_NAME);
        ArtifactRef there = bucket.refOf("v" + version + "/" + Manifest.FILE_NAME, Checkpoint.sha256(manifest), Files.size(manifest));
        refs.put(Manifest.FILE_NAME, reuse && bucket.exists(there) ? there : bucket.write("v" + version + "/" + Manifest.FILE_NAME, manifest));
        return refs;
    }

    /** Deletes the copies of the versions the retention let go; returns those that could not be (logged by the caller). */
    List<String> delete(List<Long> versions) {
        var failed = new ArrayList<String>();
        for (long v : versions) {
            try {
                bucket.deleteAll("v" + v);
            } catch (IOException | RuntimeException e) {
                failed.add("v" + v + ": " + e.getMessage());
            }
        }
        return failed;
    }
}
