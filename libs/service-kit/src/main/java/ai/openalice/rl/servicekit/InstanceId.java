package ai.openalice.rl.servicekit;

/** A service instance's name in claims, leases and logs: the configured one, or host name and pid. */
public final class InstanceId {
    private InstanceId() {}

    public static String orDefault(java.util.Optional<String> configured, String service) {
        return configured.orElseGet(() -> {
            try {
                return java.net.InetAddress.getLocalHost().getHostName() + "-" + ProcessHandle.current().pid();
            } catch (java.net.UnknownHostException e) {
                return service + "-" + ProcessHandle.current().pid();
            }
        });
    }
}
