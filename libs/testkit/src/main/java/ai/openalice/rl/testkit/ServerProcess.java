package ai.openalice.rl.testkit;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * A real external engine (vLLM, SkyRL's Tinker server) run as a process for the rest of the test
 * JVM: started on a free loopback port, waited for until its health path answers 200, and stopped
 * with every process it started when the JVM exits. Its output goes to a log file, whose tail any
 * failure to start quotes.
 */
final class ServerProcess {
    /** Every engine process started in this JVM (they live as long as it does). */
    static final Set<ProcessHandle> STARTED = ConcurrentHashMap.newKeySet();

    private ServerProcess() {}

    /**
     * Starts {@code command.apply(port)} with {@code env} added and returns its base URL once
     * {@code health} answers 200; an IllegalStateException naming {@code name} and quoting the log
     * when it exits first or does not answer within {@code timeout}.
     */
    static URI start(String name, IntFunction<List<String>> command, Map<String, String> env, Path log, String health, Duration timeout) {
        return run(name, command, env, log, health, timeout, freePort()).base();
    }

    /** A server started on {@code base}'s port, and its process. */
    record Running(URI base, Process process) {
        /** Stops the process and what it started, as a crash or a node's loss would (no time to save anything). */
        void kill() {
            List<ProcessHandle> children = process.descendants().toList();
            process.destroyForcibly();
            children.forEach(ProcessHandle::destroyForcibly);
            try {
                process.waitFor(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static int freePort() {
        try (var s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port: " + e.getMessage(), e);
        }
    }

    /** The same on {@code port} (a restarted server keeps its clients' URL); the process is returned. */
    static Running run(String name, IntFunction<List<String>> command, Map<String, String> env, Path log, String health, Duration timeout, int port) {
        try {
            Files.createDirectories(log.getParent());
            var pb = new ProcessBuilder(command.apply(port)).redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().putAll(env);
            Process p = pb.start();
            STARTED.add(p.toHandle());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(p)));
            URI base = URI.create("http://127.0.0.1:" + port);
            var http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                if (!p.isAlive()) {
                    throw new IllegalStateException(name + " exited with " + p.exitValue() + " while starting: " + tail(log));
                }
                try {
                    var r = http.send(HttpRequest.newBuilder(base.resolve(health)).timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() == 200) {
                        return new Running(base, p);
                    }
                } catch (IOException notYet) {
                    // not listening yet
                }
                Thread.sleep(1000);
            }
            stop(p);
            throw new IllegalStateException(name + " did not answer " + health + " within " + timeout + ": " + tail(log));
        } catch (IOException e) {
            throw new IllegalStateException("starting " + name + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting " + name, e);
        }
    }

    /** The process and what it started (SkyRL's server runs its engine as a child of its own). */
    private static void stop(Process p) {
        List<ProcessHandle> children = p.descendants().toList();
        p.destroy();
        children.forEach(ProcessHandle::destroy);
        try {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
        }
        children.forEach(ProcessHandle::destroyForcibly);
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }
}
