package ai.openalice.rl.cli;

import ai.openalice.rl.events.task.Task;
import ai.openalice.rl.events.task.WorkspaceSpec;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Task lines as they leave this machine: local workspace paths made absolute (they resolved against the file's folder). */
public final class TaskFiles {
    private TaskFiles() {}

    public static ObjectNode portable(Task task) {
        ObjectNode raw = task.raw().deepCopy();
        String path = localPath(task.workspace());
        if (path != null && raw.get("workspace") instanceof ObjectNode ws) {
            ws.put("path", path);
        }
        return raw;
    }

    /** The host path a workspace is copied from (git, folder, tarball); null for an image or a mirror. */
    public static String localPath(WorkspaceSpec workspace) {
        return switch (workspace) {
            case WorkspaceSpec.Git g -> g.path();
            case WorkspaceSpec.Dir d -> d.path();
            case WorkspaceSpec.Tarball t -> t.path();
            default -> null;
        };
    }
}
