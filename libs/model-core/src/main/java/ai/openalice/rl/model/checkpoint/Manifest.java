package ai.openalice.rl.model.checkpoint;

import ai.openalice.rl.model.GptConfig;
import java.time.Instant;
import java.util.Map;

/**
 * What a checkpoint is: format, architecture, tokenizer, policy version, training step, and the
 * sha256 and size of every file in it.
 */
public record Manifest(
        String format, String architecture, GptConfig config, String tokenizer, long policyVersion, long step, Instant createdAt,
        Map<String, FileEntry> files) {

    public static final String FORMAT = "alice-rl-checkpoint/1";
    public static final String FILE_NAME = "manifest.json";

    public Manifest {
        files = Map.copyOf(files);
    }

    /** A file of the checkpoint. */
    public record FileEntry(String sha256, long bytes) {}
}
