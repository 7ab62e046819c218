package ai.openalice.rl.events.task;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The versioning rule of the task-dispatcher, the one authority on task versions (it announces each
 * version it decides on {@code tasks.accepted}; no other service applies this rule): the first
 * submission of an id is version 1; the
 * same content again changes nothing; different content is version n+1 only when the publisher
 * asks for a new version, and a conflict otherwise. Content is compared by the sha256 of its
 * canonical JSON (keys sorted).
 */
public final class TaskVersioning {
    private static final ObjectMapper CANONICAL = new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    private TaskVersioning() {}

    /** What to do with a submission. */
    public sealed interface Decision {
        /** Store as this version. */
        record Store(int version) implements Decision {}

        /** Identical to the stored version: nothing to do. */
        record Unchanged(int version) implements Decision {}

        /** Different content without {@code newVersion}: reject. */
        record Conflict(int latestVersion) implements Decision {}
    }

    /**
     * @param latestVersion the newest stored version, or null when the id is new
     * @param latestHash its content hash
     */
    public static Decision decide(Integer latestVersion, String latestHash, String newHash, boolean newVersion) {
        if (latestVersion == null) {
            return new Decision.Store(1);
        }
        if (latestHash.equals(newHash)) {
            return new Decision.Unchanged(latestVersion);
        }
        return newVersion ? new Decision.Store(latestVersion + 1) : new Decision.Conflict(latestVersion);
    }

    /** sha256 (hex) of the canonical JSON of a task. */
    public static String contentHash(JsonNode task) {
        try {
            Object tree = CANONICAL.treeToValue(task, Object.class); // maps, so that keys get sorted
            byte[] bytes = CANONICAL.writeValueAsString(tree).getBytes(StandardCharsets.UTF_8);
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (IOException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot hash a task", e);
        }
    }
}
