package ai.openalice.rl.events;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * A task version as the task-dispatcher — the one authority on task versions — accepted it: the
 * id, the version it assigned, the sha256 of the content's canonical JSON, and the content. The
 * verifier and rubric-prm keep replicas of these, keyed by (taskId, version), and never decide a
 * version themselves. Keyed {@code taskId:version} on a compacted topic, so the topic alone rebuilds
 * a replica.
 */
public record TaskAccepted(String taskId, int version, String contentHash, ObjectNode task) implements EventPayload {

    public TaskAccepted {
        Objects.requireNonNull(taskId, "taskId");
        Objects.requireNonNull(contentHash, "contentHash");
        Objects.requireNonNull(task, "task");
        if (version < 1) {
            throw new IllegalArgumentException("version must be at least 1, got " + version);
        }
    }

    @Override
    public String key() {
        return taskId + ":" + version;
    }
}
