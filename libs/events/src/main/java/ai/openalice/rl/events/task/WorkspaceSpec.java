package ai.openalice.rl.events.task;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.nio.file.Path;

/**
 * Where an episode's repository comes from. Paths are absolute once parsed (relative ones are
 * resolved against the task file's folder).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = WorkspaceSpec.Git.class, name = "git"),
    @JsonSubTypes.Type(value = WorkspaceSpec.Dir.class, name = "dir"),
    @JsonSubTypes.Type(value = WorkspaceSpec.Tarball.class, name = "tarball"),
    @JsonSubTypes.Type(value = WorkspaceSpec.Image.class, name = "image"),
    @JsonSubTypes.Type(value = WorkspaceSpec.Mirror.class, name = "mirror")
})
public sealed interface WorkspaceSpec {

    /** A git repository checked out at {@code commit}. */
    record Git(String path, String commit) implements WorkspaceSpec {}

    /** A directory copied as it is. */
    record Dir(String path) implements WorkspaceSpec {}

    /** A tarball (.tar, .tar.gz, .tgz) unpacked. */
    record Tarball(String path) implements WorkspaceSpec {}

    /** A container image (Kubernetes sandboxes); the workspace is {@code workdir} inside it. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Image(String image, String workdir) implements WorkspaceSpec {}

    /**
     * A SWE-bench-style task without {@code workspace}: {@code repo} ("owner/name") at
     * {@code commit}, found in the configured mirrors folder as {@code <mirrors>/<owner>__<name>}.
     */
    record Mirror(String repo, String commit) implements WorkspaceSpec {
        /** The git workspace this mirror resolves to under {@code mirrors}. */
        public Git resolve(Path mirrors) {
            return new Git(mirrors.resolve(repo.replace("/", "__")).toAbsolutePath().normalize().toString(), commit);
        }
    }
}
