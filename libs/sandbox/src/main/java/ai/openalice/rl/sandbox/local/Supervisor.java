package ai.openalice.rl.sandbox.local;

import ai.openalice.rl.sandbox.OutputCollector;
import ai.openalice.rl.sandbox.SandboxException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One bubblewrap process per sandbox, started once, running {@code supervisor.sh} as pid 1 of the
 * sandbox's namespaces: a command is a request on its stdin instead of a new bubblewrap, so the
 * namespaces, mounts and limits are set up once per sandbox rather than once per command.
 *
 * <p>Each command's output arrives on the supervisor's stdout and stderr and ends with a marker:
 * NUL, a random token sent with the request, and on stdout the exit status. The supervisor writes
 * the markers only after it has killed everything the command left behind, so nothing writes
 * after them. Why a bash script and not a helper binary: bash is what every command runs in
 * already, so the sandbox needs nothing new, and the script is short enough to read whole.
 */
final class Supervisor {
    static final String SCRIPT = loadScript();
    /**
     * What bubblewrap runs: a line that reads the script from stdin (so that {@code ps} in the
     * sandbox shows one short line), with every signal at its default first — a service started in
     * the background of a shell inherits SIGINT and SIGQUIT ignored, and bash cannot undo that for
     * the commands it runs.
     */
    static final List<String> PROGRAM = List.of("/usr/bin/env", "--default-signal", "/bin/bash", "-c", "IFS= read -r -d '' script && eval \"$script\"",
            "alice-rl-supervisor");

    private final Process process;
    private final Thread outReader;
    private final Thread errReader;
    private volatile Pending current;

    /** What one command produced: {@code exit} is null when the supervisor ended before the command did. */
    record Outcome(Integer exit, OutputCollector out, OutputCollector err, boolean timedOut) {}

    private Supervisor(Process process) {
        this.process = process;
        this.outReader = Thread.ofVirtual().start(() -> pump(process.getInputStream(), true));
        this.errReader = Thread.ofVirtual().start(() -> pump(process.getErrorStream(), false));
    }

    /** Starts {@code commandLine} (bubblewrap running {@link #PROGRAM}) in {@code dir} and sends it the script. */
    static Supervisor start(List<String> commandLine, Path dir) {
        Process p;
        try {
            p = new ProcessBuilder(commandLine).directory(dir.toFile()).start();
        } catch (IOException e) {
            throw new SandboxException(SandboxException.Reason.START_FAILED, "cannot start bubblewrap: " + e.getMessage(), e);
        }
        var s = new Supervisor(p);
        try {
            p.getOutputStream().write((SCRIPT + "\0").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            // bubblewrap failed at once: the first command's outcome says why
        }
        return s;
    }

    boolean alive() {
        return process.isAlive() && current == null;
    }

    /** The host pids of this sandbox's own processes: bubblewrap and the supervisor it started. */
    Set<Long> pids() {
        var pids = new HashSet<Long>();
        pids.add(process.pid());
        process.children().forEach(c -> pids.add(c.pid()));
        return pids;
    }

    /**
     * Runs one command. At the timeout, or when the supervisor ends, the sandbox's processes are
     * killed (this supervisor with them); the caller starts a new one for the next command.
     */
    Outcome run(String command, Duration timeout, int outputCap) throws InterruptedException {
        String token = UUID.randomUUID().toString().replace("-", "");
        var pending = new Pending(token, outputCap);
        current = pending;
        try {
            OutputStream in = process.getOutputStream();
            in.write((token + "\n" + command + "\0").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            // It has ended already: the readers say so, with what it printed.
            pending.ended();
        }
        boolean finished = pending.done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (finished && pending.exit != null) {
            current = null;
            return new Outcome(pending.exit, pending.out.sink, pending.err.sink, false);
        }
        kill();
        return new Outcome(null, pending.out.sink, pending.err.sink, !finished);
    }

    /** Kills bubblewrap (its pid namespace dies with it) and waits for the readers to see the end. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        outReader.join(Duration.ofSeconds(10));
        errReader.join(Duration.ofSeconds(10));
    }

    /** Kills bubblewrap without waiting (closing a sandbox while a command runs). */
    void destroy() {
        process.destroyForcibly();
    }

    /** Waits (at most 10 s) for bubblewrap to end after {@link #destroy}. */
    void awaitExit() {
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    int exitValue() {
        return process.isAlive() ? -1 : process.exitValue();
    }

    private void pump(InputStream in, boolean stdout) {
        byte[] buf = new byte[64 * 1024];
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                Pending p = current;
                if (p != null) {
                    p.feed(stdout, buf, n);
                }
            }
        } catch (IOException | UncheckedIOException ignored) {
            // the process ended
        }
        Pending p = current;
        if (p != null) {
            p.ended();
        }
    }

    private static String loadScript() {
        try (InputStream in = Supervisor.class.getResourceAsStream("supervisor.sh")) {
            if (in == null) {
                throw new IllegalStateException("supervisor.sh is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One command in flight: its two streams, each until its marker line. */
    private static final class Pending {
        final Marked out;
        final Marked err;
        final CountDownLatch done = new CountDownLatch(1);
        volatile Integer exit;

        Pending(String token, int cap) {
            byte[] marker = ("\0" + token).getBytes(StandardCharsets.US_ASCII);
            this.out = new Marked(marker, new OutputCollector(cap));
            this.err = new Marked(marker, new OutputCollector(cap));
        }

        synchronized void feed(boolean stdout, byte[] b, int len) {
            (stdout ? out : err).feed(b, 0, len);
            if (out.lineDone && err.lineDone && done.getCount() > 0) {
                try {
                    exit = Integer.parseInt(out.trailer.toString().strip());
                } catch (NumberFormatException e) {
                    exit = null; // not the supervisor's line: treat as its end
                }
                done.countDown();
            }
        }

        synchronized void ended() {
            done.countDown();
        }
    }

    /**
     * A stream cut at its marker: bytes before it go to the collector, the rest of the marker's
     * line is kept as the trailer. The marker starts with the only NUL it holds, so a partial
     * match can only start at a NUL, and a failed one gives its bytes back to the output.
     */
    static final class Marked {
        private final byte[] marker;
        final OutputCollector sink;
        private int matched;
        private boolean found;
        boolean lineDone;
        final StringBuilder trailer = new StringBuilder();

        Marked(byte[] marker, OutputCollector sink) {
            this.marker = marker;
            this.sink = sink;
        }

        void feed(byte[] b, int off, int len) {
            int i = off;
            int end = off + len;
            while (i < end && !lineDone) {
                if (found) {
                    byte c = b[i++];
                    if (c == '\n') {
                        lineDone = true;
                    } else if (trailer.length() < 32) {
                        trailer.append((char) c);
                    }
                } else if (matched == 0) {
                    int z = i;
                    while (z < end && b[z] != 0) {
                        z++;
                    }
                    sink.accept(b, i, z - i);
                    if (z < end) {
                        matched = 1;
                        z++;
                    }
                    i = z;
                } else if (b[i] == marker[matched]) {
                    i++;
                    if (++matched == marker.length) {
                        found = true;
                    }
                } else {
                    sink.accept(marker, 0, matched); // not the marker: what was held back is output
                    matched = 0;
                }
            }
        }
    }
}
