package ai.openalice.rl.agent.external;

import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.Shell;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How an agent program is started in a sandbox that has no network: the folder holding the
 * {@link SocketBridge}'s socket is mounted at {@link #SOCKET_DIR}; socat listens on the sandbox's
 * own loopback at {@link #PORT} and carries each connection to that socket; the program runs with
 * the usual OpenAI variables pointing there and the episode's key. Nothing else of the host's
 * network is reachable from the sandbox.
 */
public final class AgentProgram {
    /** Where the socket's folder is mounted in the sandbox. */
    public static final String SOCKET_DIR = "/run/alice-rl-policy";
    /** The port on the sandbox's loopback the program calls. */
    public static final int PORT = 4000;

    private AgentProgram() {}

    /** {@code spec} with the socket's folder mounted and the program's variables: base URL, key and model. */
    public static SandboxSpec prepare(SandboxSpec spec, Path socketDir, String key, String model) {
        var mounts = new ArrayList<>(spec.mounts());
        mounts.add(new SandboxSpec.ReadOnlyMount(socketDir, SOCKET_DIR));
        var env = new LinkedHashMap<>(spec.env());
        String base = "http://127.0.0.1:" + PORT + "/v1";
        env.putAll(Map.of("OPENAI_BASE_URL", base, "OPENAI_API_BASE", base, "OPENAI_API_KEY", key, "ALICE_RL_MODEL", model));
        return spec.withMounts(List.copyOf(mounts)).withEnv(env);
    }

    /**
     * The shell command that starts the forwarder, waits until it listens, then runs {@code program}
     * (a shell command) as the sandbox's main process; the forwarder ends with the sandbox.
     */
    public static String command(String socketName, String program) {
        return "socat TCP-LISTEN:" + PORT + ",bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:" + Shell.quote(SOCKET_DIR + "/" + socketName)
                + " 2>/tmp/.alice-rl-socat.log &\n"
                + "for i in $(seq 100); do (: < /dev/tcp/127.0.0.1/" + PORT + ") 2>/dev/null && break; sleep 0.05; done\n"
                + program;
    }
}
