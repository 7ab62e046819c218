package ai.openalice.rl.sandbox;

import ai.openalice.rl.events.task.WorkspaceSpec;
import java.nio.file.Path;

/** Where a sandbox's workspace comes from. */
public sealed interface WorkspaceSource {

    /** The tree of {@code commit} in the git repository at {@code repo} (history is not copied: no peeking at later commits). */
    record Git(Path repo, String commit) implements WorkspaceSource {}

    /** A copy of a directory ({@code .git} excluded). */
    record Dir(Path path) implements WorkspaceSource {}

    /** The contents of a tarball (.tar, .tar.gz, .tgz, .tar.xz). */
    record Tarball(Path path) implements WorkspaceSource {}

    /** A container image's {@code workdir} (Kubernetes only). */
    record Image(String image, String workdir) implements WorkspaceSource {}

    /** An empty workspace. */
    record Empty() implements WorkspaceSource {}

    /** The source a task's workspace spec names; mirrors resolve under {@code mirrors}. */
    static WorkspaceSource of(WorkspaceSpec spec, Path mirrors) {
        return switch (spec) {
            case WorkspaceSpec.Git g -> new Git(Path.of(g.path()), g.commit());
            case WorkspaceSpec.Dir d -> new Dir(Path.of(d.path()));
            case WorkspaceSpec.Tarball t -> new Tarball(Path.of(t.path()));
            case WorkspaceSpec.Image i -> new Image(i.image(), i.workdir());
            case WorkspaceSpec.Mirror m -> {
                if (mirrors == null) {
                    throw new SandboxException(SandboxException.Reason.WORKSPACE_UNAVAILABLE,
                            "task needs mirror " + m.repo() + " but no mirrors folder is configured");
                }
                var git = m.resolve(mirrors);
                yield new Git(Path.of(git.path()), git.commit());
            }
        };
    }
}
