package ai.openalice.rl.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether the folders the harness mounts into sandboxes can be read by sandbox users. Run as root,
 * each local sandbox runs under a uid of its own, so a Maven repository under a 0700 home mounts
 * fine and then reads as empty: the build fails offline and the verdict looks like the patch's.
 * Checked at start instead, naming the folder that blocks.
 */
public final class SandboxReadable {
    private SandboxReadable() {}

    /** The problem with each named folder ({@code --maven-repo} → path), empty when all can be read; only when run as root. */
    public static List<String> problems(Map<String, Path> folders) {
        return runningAsRoot() ? check(folders) : List.of();
    }

    /**
     * Stops a service's start when sandboxes could not read a folder it mounts ({@code service}
     * names it in the message); the map's keys are the settings that name the folders.
     */
    public static void requireReadable(String service, Map<String, Path> folders) {
        var problems = problems(folders);
        if (!problems.isEmpty()) {
            throw new IllegalStateException("sandboxes could not read what the " + service + " mounts: " + String.join("; ", problems));
        }
    }

    /** The same check whatever the uid (tests). */
    static List<String> check(Map<String, Path> folders) {
        var out = new ArrayList<String>();
        for (var e : new LinkedHashMap<>(folders).entrySet()) {
            if (e.getValue() != null) {
                String p = problem(e.getValue().toAbsolutePath().normalize());
                if (p != null) {
                    out.add(e.getKey() + " " + e.getValue() + ": " + p);
                }
            }
        }
        return out;
    }

    private static String problem(Path folder) {
        if (!Files.isDirectory(folder)) {
            return "not a folder";
        }
        try {
            Set<PosixFilePermission> own = Files.getPosixFilePermissions(folder);
            if (!own.contains(PosixFilePermission.OTHERS_READ) || !own.contains(PosixFilePermission.OTHERS_EXECUTE)) {
                return "not readable by sandbox users (" + PosixFilePermissions.toString(own) + "); chmod -R a+rX it";
            }
            for (Path up = folder.getParent(); up != null; up = up.getParent()) {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(up);
                if (!perms.contains(PosixFilePermission.OTHERS_EXECUTE)) {
                    return "sandbox users cannot reach it: " + up + " is " + PosixFilePermissions.toString(perms)
                            + " (copy it to a folder others can enter, e.g. under /tmp, or chmod o+x " + up + ")";
                }
            }
            return null;
        } catch (IOException | UnsupportedOperationException e) {
            return "cannot read its permissions: " + e.getMessage();
        }
    }

    private static boolean runningAsRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
