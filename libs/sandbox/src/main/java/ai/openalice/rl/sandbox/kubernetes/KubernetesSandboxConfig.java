package ai.openalice.rl.sandbox.kubernetes;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Settings of the Kubernetes backend.
 *
 * @param namespace where sandbox pods run (separate from the services, with its own deny-all policy)
 * @param baseImage image for workspaces copied in (git, dir, tarball); needs bash, coreutils, tar and git
 * @param workdir where the workspace lives in the pod
 * @param runnerId owner label of this runner's pods (stable across restarts, e.g. the runner pod's name)
 * @param warmPoolSize base-image pods kept started and idle, so an episode does not wait for a pod start
 * @param podStartTimeout how long to wait for a pod to become ready
 * @param activeDeadline Kubernetes kills a sandbox pod after this, whatever happens to its runner
 * @param cpu CPU request and limit of a sandbox container (e.g. "1")
 */
public record KubernetesSandboxConfig(
        String namespace, String baseImage, String workdir, String runnerId, int warmPoolSize, Duration podStartTimeout,
        Duration activeDeadline, String cpu) {

    /** A Kubernetes label value: at most 63 characters, alphanumerics with '-', '_', '.' inside. */
    private static final Pattern LABEL_VALUE = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?");
    /** A namespace name (RFC 1123 label). */
    private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

    public KubernetesSandboxConfig {
        if (namespace == null || !NAMESPACE.matcher(namespace).matches()) {
            throw new IllegalArgumentException("namespace '" + namespace + "' is not a Kubernetes namespace name (lower-case letters, digits and '-', at most 63)");
        }
        if (runnerId == null || runnerId.isEmpty() || !LABEL_VALUE.matcher(runnerId).matches()) {
            throw new IllegalArgumentException("runner id '" + runnerId + "' cannot be the owner label of sandbox pods: it must be at most 63 "
                    + "letters, digits, '-', '_' or '.', starting and ending alphanumeric (set runner.id, e.g. to the runner's pod name)");
        }
        if (warmPoolSize < 0) {
            throw new IllegalArgumentException("warm pool size " + warmPoolSize + " is negative");
        }
    }

    public static KubernetesSandboxConfig defaults(String namespace, String runnerId) {
        return new KubernetesSandboxConfig(namespace, "ghcr.io/openalice/alice-rl-sandbox:latest", "/workspace", runnerId, 2,
                Duration.ofMinutes(3), Duration.ofHours(2), "1");
    }

    public KubernetesSandboxConfig withWarmPoolSize(int n) {
        return new KubernetesSandboxConfig(namespace, baseImage, workdir, runnerId, n, podStartTimeout, activeDeadline, cpu);
    }

    public KubernetesSandboxConfig withPodStartTimeout(Duration d) {
        return new KubernetesSandboxConfig(namespace, baseImage, workdir, runnerId, warmPoolSize, d, activeDeadline, cpu);
    }
}
