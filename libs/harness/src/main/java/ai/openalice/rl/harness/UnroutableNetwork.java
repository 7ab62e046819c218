package ai.openalice.rl.harness;

import ai.openalice.rl.sandbox.Shell;
import java.util.List;

/**
 * A test command run where some addresses swallow connections, as unroutable addresses do on a real
 * network (a test of a connect timeout dials {@code 10.255.255.1} and expects to wait), while the
 * sandbox still reaches nothing: the command runs in a network namespace of its own, made by a user
 * namespace of its own inside the sandbox ({@code unshare}, no privilege needed), whose only device
 * is loopback and where those networks are routed to it — loopback drops what is not addressed to
 * the host, so a connection attempt there times out. The command itself runs under the sandbox's
 * own uid and gid (a second user namespace maps them back). Where the host forbids user namespaces
 * the command runs as it is and says so on standard error; its timeout tests then fail at once, as
 * they would without the route.
 */
final class UnroutableNetwork {
    private UnroutableNetwork() {}

    /** {@code command}, run where {@code networks} swallow connections; unchanged for none. */
    static String wrap(List<String> networks, String command) {
        if (networks.isEmpty()) {
            return command;
        }
        var routes = new StringBuilder("ip link set lo up");
        for (String n : networks) {
            routes.append(" && ip route add ").append(Shell.quote(n)).append(" dev lo");
        }
        String inner = routes + " && exec unshare --user --map-user=\"$1\" --map-group=\"$2\" -- bash -c \"$0\"";
        return "if unshare -rn true 2>/dev/null; then\n"
                + "  exec unshare -rn bash -c " + Shell.quote(inner) + " " + Shell.quote(command) + " \"$(id -u)\" \"$(id -g)\"\n"
                + "fi\n"
                + "echo 'alice-rl: user namespaces are not allowed here: the tests run without their unroutable networks' >&2\n"
                + command;
    }
}
