package ai.openalice.rl.sandbox.local;

import java.nio.file.Path;

/**
 * Settings of the local (bubblewrap) backend.
 *
 * @param root where templates, workspaces and leases live (one folder per host; shared by runners)
 * @param uidBase first host uid of the pool; each live sandbox runs as its own uid, so process
 *     limits, file ownership and clean-up are per sandbox even when the service runs as root
 * @param uidCount size of the uid pool (the most sandboxes alive at once on this host)
 * @param workdir where the workspace appears inside the sandbox
 * @param tmpBytes size of the sandbox's private {@code /tmp}
 */
public record LocalSandboxConfig(Path root, int uidBase, int uidCount, String workdir, long tmpBytes) {

    public static LocalSandboxConfig defaults() {
        return new LocalSandboxConfig(Path.of(System.getProperty("java.io.tmpdir"), "alice-rl-sandboxes"), 200_000, 1024, "/workspace",
                256L * 1024 * 1024);
    }

    public LocalSandboxConfig withRoot(Path r) {
        return new LocalSandboxConfig(r, uidBase, uidCount, workdir, tmpBytes);
    }

    public LocalSandboxConfig withUidBase(int base) {
        return new LocalSandboxConfig(root, base, uidCount, workdir, tmpBytes);
    }
}
