package ai.openalice.rl.harness;

import ai.openalice.rl.sandbox.HostCommand;
import ai.openalice.rl.sandbox.SandboxSpec;
import ai.openalice.rl.sandbox.Shell;
import ai.openalice.rl.sandbox.WorkspaceSource;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a task's test run gets of a network that a sandbox does not have, without reaching anything:
 * {@code toolchain.unroutable} networks swallow connections, as unroutable addresses do on a real
 * network (a test of a connect timeout dials {@code 10.255.255.1} and expects to wait), and
 * {@code toolchain.stand_ins} serve on the sandbox's own loopback what its tests would call on the
 * internet ({@code httpbin}: httpbin.org over HTTP on port 80 and HTTPS on 443, the name resolving
 * to loopback, its certificate trusted through {@code REQUESTS_CA_BUNDLE} and added to every CA
 * bundle a client reads by default). The test command
 * runs in network and mount namespaces of its own, made inside the sandbox by an unprivileged user
 * namespace ({@code unshare}), whose only device is loopback: routes, the hosts file and the
 * stand-ins' ports are set there, then a second user namespace gives the command back the
 * sandbox's uid and gid. Where the host forbids user namespaces the command runs as it is and says
 * so on standard error.
 */
record SandboxNetwork(List<String> unroutable, List<Path> httpbin) {
    /** The stand-ins this harness knows, by the name a task gives. */
    static final List<String> STAND_INS = List.of("httpbin");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** httpbin's own server (Flask's app) on both ports, TLS on 443 with the stand-in's certificate. */
    private static final String SERVE = String.join("\n", "import ssl, sys, threading", "from werkzeug.serving import make_server",
            "from httpbin import app", "tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)", "tls.load_cert_chain(sys.argv[1], sys.argv[2])",
            "https = make_server('127.0.0.1', 443, app, threaded=True, ssl_context=tls)",
            "threading.Thread(target=https.serve_forever, daemon=True).start()", "make_server('127.0.0.1', 80, app, threaded=True).serve_forever()", "");

    static final SandboxNetwork NONE = new SandboxNetwork(List.of(), List.of());

    /** The network for a task's test runs; a stand-in's environment is built (once) in {@code environments}. */
    static SandboxNetwork of(List<String> unroutable, List<String> standIns, PythonEnvironments environments) throws PythonEnvironments.Unavailable {
        var httpbin = new ArrayList<Path>();
        if (standIns.contains("httpbin")) {
            if (environments == null) {
                throw new PythonEnvironments.Unavailable("the task's tests need the httpbin stand-in, a Python environment this verifier builds none of", "");
            }
            httpbin.add(httpbin(environments));
        }
        return new SandboxNetwork(List.copyOf(unroutable), httpbin);
    }

    /** httpbin's environment from PyPI, with its server script and a self-signed certificate for httpbin.org beside it. */
    private static Path httpbin(PythonEnvironments environments) throws PythonEnvironments.Unavailable {
        try {
            Path empty = Files.createTempDirectory("alice-rl-stand-in");
            var spec = JSON.createObjectNode().put("version", "3.11");
            spec.putArray("pip_packages").add("httpbin==0.10.2");
            Path home = environments.ensure(spec, new WorkspaceSource.Dir(empty), null).home();
            Files.delete(empty);
            Path tls = home.resolve("stand-in");
            if (!Files.exists(tls.resolve("cert.pem"))) {
                Files.createDirectories(tls);
                Files.writeString(tls.resolve("serve.py"), SERVE);
                HostCommand.check(List.of("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "36500", "-subj", "/CN=httpbin.org",
                        "-addext", "subjectAltName=DNS:httpbin.org,DNS:www.httpbin.org", "-keyout", tls.resolve("key.pem").toString(),
                        "-out", tls.resolve("cert.pem").toString()), null, Duration.ofMinutes(1));
                HostCommand.check(List.of("chmod", "-R", "a+rX", tls.toString()), null, Duration.ofMinutes(1));
            }
            return home;
        } catch (IOException e) {
            throw new PythonEnvironments.Unavailable("the httpbin stand-in could not be prepared: " + e.getMessage(), "");
        }
    }

    /** {@code spec} with the stand-ins' environments mounted read-only where they were built. */
    SandboxSpec applyTo(SandboxSpec spec) {
        var mounts = new ArrayList<>(spec.mounts());
        httpbin.forEach(h -> mounts.add(new SandboxSpec.ReadOnlyMount(h, h.toString())));
        return spec.withMounts(mounts);
    }

    /** {@code command}, run in this network; unchanged when it asks for nothing. */
    String wrap(String command) {
        if (unroutable.isEmpty() && httpbin.isEmpty()) {
            return command;
        }
        var setUp = new StringBuilder("ip link set lo up");
        for (String n : unroutable) {
            setUp.append(" && ip route add ").append(Shell.quote(n)).append(" dev lo");
        }
        for (Path h : httpbin) {
            String tls = h.resolve("stand-in").toString();
            setUp.append(" && { cat /etc/hosts; echo '127.0.0.1 httpbin.org www.httpbin.org'; } > /tmp/.alice-rl-hosts")
                    .append(" && mount --bind /tmp/.alice-rl-hosts /etc/hosts")
                    .append(" && { LD_LIBRARY_PATH=").append(h).append("/lib ").append(h).append("/bin/python3.11 -I ").append(tls).append("/serve.py ")
                    .append(tls).append("/cert.pem ").append(tls).append("/key.pem > /tmp/.alice-rl-httpbin.log 2>&1 & }")
                    .append(" && for i in $(seq 100); do (: < /dev/tcp/127.0.0.1/443) 2>/dev/null && break; sleep 0.1; done")
                    .append(" && export REQUESTS_CA_BUNDLE=").append(tls).append("/cert.pem")
                    // trusted wherever a client looks, as httpbin.org's own certificate is: the system's bundle and every
                    // cacert.pem of the workspace and the Python environments (requests' own, certifi's), each extended in a
                    // mount of this namespace only, the files themselves unchanged
                    .append(" && mkdir -p /tmp/.alice-rl-ca && n=0 && for f in /etc/ssl/certs/ca-certificates.crt")
                    .append(" $(find . \"$(python -c 'import sys; print(sys.prefix)' 2>/dev/null || echo .)\" -name cacert.pem 2>/dev/null);")
                    .append(" do [ -f \"$f\" ] || continue; n=$((n+1)); cat \"$f\" ").append(tls).append("/cert.pem > /tmp/.alice-rl-ca/$n.pem")
                    .append(" && mount --bind /tmp/.alice-rl-ca/$n.pem \"$f\"; done");
        }
        String inner = setUp + " && exec unshare --user --map-user=\"$1\" --map-group=\"$2\" -- bash -c \"$0\"";
        return "if unshare -rnm true 2>/dev/null; then\n"
                + "  exec unshare -rnm bash -c " + Shell.quote(inner) + " " + Shell.quote(command) + " \"$(id -u)\" \"$(id -g)\"\n"
                + "fi\n"
                + "echo 'alice-rl: user namespaces are not allowed here: the tests run without their unroutable networks and stand-ins' >&2\n"
                + command;
    }
}
