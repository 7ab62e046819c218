package ai.openalice.rl.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The TCP sockets that this JVM's descendant processes listen on, read from /proc: each process's
 * socket inodes ({@code /proc/PID/fd}) matched with the listening entries of
 * {@code /proc/net/tcp} and {@code tcp6}. For checking what a command exposes, as {@code ss -ltnp}
 * shows it.
 */
final class ListeningSockets {
    /** One listening socket: who holds it and its local address, as {@code 127.0.0.1:8080} or {@code [::]:9092}. */
    record Socket(long pid, String command, String address, boolean loopback) {}

    private ListeningSockets() {}

    static List<Socket> ofDescendants() throws IOException {
        Map<String, Socket> byInode = new HashMap<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table)).stream().skip(1).toList()) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[3].equals("0A")) { // TCP_LISTEN
                    byInode.put(f[9], new Socket(0, "", address(f[1]), loopback(f[1])));
                }
            }
        }
        var out = new ArrayList<Socket>();
        for (ProcessHandle p : ProcessHandle.current().descendants().toList()) {
            Set<String> seen = new HashSet<>();
            try (var fds = Files.list(Path.of("/proc", String.valueOf(p.pid()), "fd"))) {
                for (Path fd : fds.toList()) {
                    String target;
                    try {
                        target = Files.readSymbolicLink(fd).toString();
                    } catch (IOException e) {
                        continue; // closed meanwhile
                    }
                    if (target.startsWith("socket:[")) {
                        String inode = target.substring(8, target.length() - 1);
                        Socket s = byInode.get(inode);
                        if (s != null && seen.add(inode)) {
                            out.add(new Socket(p.pid(), p.info().command().orElse("?"), s.address(), s.loopback()));
                        }
                    }
                }
            } catch (IOException | UncheckedIOException e) {
                // the process ended meanwhile (while its fd folder was listed, the listing throws unchecked)
            }
        }
        return out;
    }

    /** {@code 0100007F:1F90} → {@code 127.0.0.1:8080}; IPv6 in brackets, hex. */
    static String address(String hex) {
        String[] parts = hex.split(":");
        int port = Integer.parseInt(parts[1], 16);
        String a = parts[0];
        if (a.length() == 8) {
            return Integer.parseInt(a.substring(6, 8), 16) + "." + Integer.parseInt(a.substring(4, 6), 16) + "."
                    + Integer.parseInt(a.substring(2, 4), 16) + "." + Integer.parseInt(a.substring(0, 2), 16) + ":" + port;
        }
        return "[" + a + "]:" + port;
    }

    /** 127.0.0.0/8, ::1, or ::ffff:127.x.x.x (each 32-bit word of /proc's IPv6 address is little-endian). */
    static boolean loopback(String hex) {
        String a = hex.split(":")[0];
        if (a.length() == 8) {
            return a.substring(6, 8).equalsIgnoreCase("7F");
        }
        return a.equalsIgnoreCase("00000000000000000000000001000000")
                || (a.substring(0, 24).equalsIgnoreCase("0000000000000000FFFF0000") && a.substring(30, 32).equalsIgnoreCase("7F"));
    }
}
