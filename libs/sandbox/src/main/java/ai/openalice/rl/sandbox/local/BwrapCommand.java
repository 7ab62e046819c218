package ai.openalice.rl.sandbox.local;

import ai.openalice.rl.sandbox.SandboxLimits;
import ai.openalice.rl.sandbox.SandboxSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The command line that starts a sandbox's long-lived program ({@link LocalSandbox#PROGRAM}): limits
 * (prlimit), the sandbox's own host uid (setpriv, when the service is root), then bubblewrap with
 * every namespace unshared (no network), a read-only system, a private /tmp, one writable
 * workspace and a clean environment; the program is pid 1 of the sandbox's pid namespace.
 */
final class BwrapCommand {
    static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    /** The uid and gid the agent sees inside; on the host it is the sandbox's leased uid. */
    static final int INSIDE_UID = 1000;

    private BwrapCommand() {}

    static List<String> build(boolean root, int hostUid, Path workspace, String workdir, long tmpBytes, SandboxSpec spec, List<String> program) {
        SandboxLimits l = spec.limits();
        var cmd = new ArrayList<String>();
        cmd.add("prlimit");
        cmd.add("--cpu=" + l.cpuSeconds());
        cmd.add("--as=" + l.addressSpaceBytes());
        cmd.add("--fsize=" + l.fileSizeBytes());
        cmd.add("--nofile=" + l.openFiles());
        cmd.add("--core=0");
        if (root) {
            // RLIMIT_NPROC counts the processes of the real uid; the uid is this sandbox's alone.
            // bubblewrap outside the namespace and the program (pid 1 inside) take two.
            cmd.add("--nproc=" + (l.processes() + 2));
        }
        cmd.add("--");
        if (root) {
            cmd.addAll(List.of("setpriv", "--reuid=" + hostUid, "--regid=" + hostUid, "--clear-groups", "--"));
        }
        cmd.addAll(List.of("bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--as-pid-1", "--cap-drop", "ALL",
                "--uid", String.valueOf(INSIDE_UID), "--gid", String.valueOf(INSIDE_UID), "--hostname", "sandbox",
                "--ro-bind", "/usr", "/usr"));
        for (String link : List.of("bin", "lib", "lib32", "lib64", "libx32", "sbin")) {
            Path p = Path.of("/" + link);
            if (Files.isSymbolicLink(p)) {
                cmd.addAll(List.of("--symlink", "usr/" + link, "/" + link));
            } else if (Files.isDirectory(p)) {
                cmd.addAll(List.of("--ro-bind", p.toString(), p.toString()));
            }
        }
        cmd.addAll(List.of("--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev",
                "--size", String.valueOf(tmpBytes), "--tmpfs", "/tmp",
                "--bind", workspace.toString(), workdir));
        for (SandboxSpec.ReadOnlyMount m : spec.mounts()) {
            cmd.addAll(List.of("--ro-bind", m.source().toString(), m.target()));
        }
        // The sandbox's root is bubblewrap's tmpfs: make it read-only too, so that nothing but
        // the workspace and /tmp is writable.
        cmd.addAll(List.of("--remount-ro", "/"));
        cmd.addAll(List.of("--chdir", workdir, "--clearenv",
                "--setenv", "PATH", PATH, "--setenv", "HOME", "/tmp", "--setenv", "USER", "agent",
                "--setenv", "LANG", "C.UTF-8", "--setenv", "TERM", "dumb", "--setenv", "PYTHONDONTWRITEBYTECODE", "1"));
        for (Map.Entry<String, String> e : spec.env().entrySet()) {
            cmd.addAll(List.of("--setenv", e.getKey(), e.getValue()));
        }
        cmd.add("--");
        cmd.addAll(program);
        return cmd;
    }
}
