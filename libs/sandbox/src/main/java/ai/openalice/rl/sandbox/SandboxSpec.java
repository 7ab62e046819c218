package ai.openalice.rl.sandbox;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What to create: the workspace, limits, environment, and host directories to expose read-only
 * (e.g. a local Maven repository for offline builds).
 *
 * @param labels free-form labels (task, rollout) for logs and Kubernetes objects
 */
public record SandboxSpec(WorkspaceSource workspace, SandboxLimits limits, Map<String, String> env, List<ReadOnlyMount> mounts,
        Map<String, String> labels) {

    public SandboxSpec {
        env = Map.copyOf(env);
        mounts = List.copyOf(mounts);
        labels = Map.copyOf(labels);
    }

    public static SandboxSpec of(WorkspaceSource workspace) {
        return new SandboxSpec(workspace, SandboxLimits.defaults(), Map.of(), List.of(), Map.of());
    }

    public SandboxSpec withLimits(SandboxLimits l) {
        return new SandboxSpec(workspace, l, env, mounts, labels);
    }

    public SandboxSpec withEnv(Map<String, String> e) {
        return new SandboxSpec(workspace, limits, e, mounts, labels);
    }

    public SandboxSpec withMounts(List<ReadOnlyMount> m) {
        return new SandboxSpec(workspace, limits, env, m, labels);
    }

    public SandboxSpec withLabels(Map<String, String> l) {
        return new SandboxSpec(workspace, limits, env, mounts, l);
    }

    /** A host directory visible read-only at {@code target} inside the sandbox. */
    public record ReadOnlyMount(Path source, String target) {}
}
