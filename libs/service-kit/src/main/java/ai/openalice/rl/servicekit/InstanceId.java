package ai.openalice.rl.servicekit;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/** A service instance's name in claims, leases and logs: the configured one, or host name and pid. */
public final class InstanceId {
    private InstanceId() {}

    public static String orDefault(Optional<String> configured, String service) {
        return configured.orElseGet(() -> {
            try {
                return InetAddress.getLocalHost().getHostName() + "-" + ProcessHandle.current().pid();
            } catch (UnknownHostException e) {
                return service + "-" + ProcessHandle.current().pid();
            }
        });
    }
}
