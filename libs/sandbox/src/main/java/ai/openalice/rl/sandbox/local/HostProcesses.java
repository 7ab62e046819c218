package ai.openalice.rl.sandbox.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Host-side process facts read from /proc: whether we are root, and every process of a uid. */
final class HostProcesses {
    private HostProcesses() {}

    static boolean isRoot() {
        return uidOf(Path.of("/proc/self")) == 0;
    }

    /** Kills every process whose real uid is {@code uid}; returns how many it killed. */
    static int killAll(int uid) {
        int killed = 0;
        for (int round = 0; round < 9; round++) {
            List<Long> pids = pidsOf(uid);
            if (pids.isEmpty()) {
                return killed;
            }
            for (long pid : pids) {
                if (ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false)) {
                    killed++;
                }
            }
            try {
                Thread.sleep(1L << round); // 1, 2, 4 … 256 ms: a killed process is usually gone within the first
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return killed;
            }
        }
        return killed;
    }

    /** Live processes of {@code uid}; zombies (already dead, waiting for init to reap them) are not counted. */
    static List<Long> pidsOf(int uid) {
        var out = new ArrayList<Long>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            procs.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).forEach(p -> {
                if (uidOf(p) == uid) {
                    out.add(Long.parseLong(p.getFileName().toString()));
                }
            });
        } catch (IOException e) {
            // /proc unreadable: nothing to report
        }
        return out;
    }

    private static int uidOf(Path proc) {
        try {
            for (String line : Files.readAllLines(proc.resolve("status"))) {
                if (line.startsWith("State:") && line.contains("Z (zombie)")) {
                    return -1;
                }
                if (line.startsWith("Uid:")) {
                    return Integer.parseInt(line.substring(4).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process ended while we looked
        }
        return -1;
    }
}
