package ai.openalice.rl.sandbox.shell;

import ai.openalice.rl.sandbox.OutputCollector;
import ai.openalice.rl.sandbox.PipeReaders;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A shell that lives as long as its sandbox and runs each command sent to it: {@code supervisor.sh}
 * started once on a {@link Channel} (bubblewrap's process for a local sandbox, one exec stream for a
 * pod), so that a command costs a request on its stdin instead of a new bubblewrap or a new exec.
 *
 * <p>Each command's output arrives on the supervisor's stdout and stderr and ends with a marker:
 * NUL, a random token sent with the request, and on stdout the exit status. The supervisor writes
 * the markers only after it has killed everything the command left behind, so nothing writes
 * after them. Why a bash script and not a helper binary: bash is what every command runs in
 * already, so the sandbox needs nothing new, and the script is short enough to read whole.
 */
public final class Supervisor {
    /** The script, sent on stdin as the channel's first bytes (NUL-terminated). */
    public static final String SCRIPT = loadScript();
    /** What the channel's {@code bash -c} runs: it reads the script from stdin, so that {@code ps} shows one short line. */
    public static final String LAUNCH = "IFS= read -r -d '' script && eval \"$script\"";
    /** The supervisor's {@code $0}, as {@code ps} shows it. */
    public static final String NAME = "alice-rl-supervisor";

    private final Channel channel;
    private final Supplier<String> tokens;
    private final Thread outReader;
    private final Thread errReader;
    private volatile Pending current;

    /** What one command produced: {@code exit} is null when the supervisor ended before the command did. */
    public record Outcome(Integer exit, OutputCollector out, OutputCollector err, boolean timedOut) {}

    private Supervisor(Channel channel, Supplier<String> tokens) {
        this.channel = channel;
        this.tokens = tokens;
        this.outReader = PipeReaders.start(() -> pump(channel.stdout(), true));
        this.errReader = PipeReaders.start(() -> pump(channel.stderr(), false));
    }

    /** Sends the script to {@code channel} (running {@link #LAUNCH}) and reads its streams from now on. */
    public static Supervisor start(Channel channel) {
        return start(channel, () -> UUID.randomUUID().toString().replace("-", ""));
    }

    /** As {@link #start(Channel)}, each command's token drawn from {@code tokens} (tests that script the other side). */
    public static Supervisor start(Channel channel, Supplier<String> tokens) {
        var s = new Supervisor(channel, tokens);
        try {
            OutputStream in = channel.stdin();
            in.write((SCRIPT + "\0").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            // the channel failed at once: the first command's outcome says why
        }
        return s;
    }

    public Channel channel() {
        return channel;
    }

    /** Whether it can take a command: running, and not in the middle of one. */
    public boolean alive() {
        return channel.alive() && current == null;
    }

    /**
     * Runs one command. At the timeout, or when the supervisor ends, the channel is killed (and
     * with it what the command started); the caller starts a new supervisor for the next command.
     */
    public Outcome run(String command, Duration timeout, int outputCap) throws InterruptedException {
        String token = tokens.get();
        var pending = new Pending(token, outputCap);
        current = pending;
        try {
            // Two flushes, the token line and then the command: a channel that frames what it is given
            // (the exec API's websocket) sends each as a message, which its mock can answer one by one.
            OutputStream in = channel.stdin();
            in.write((token + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
            in.write((command + "\0").getBytes(StandardCharsets.UTF_8));
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

    /** Kills the channel and waits for the readers to see the end. */
    public void kill() throws InterruptedException {
        channel.kill();
        outReader.join(Duration.ofSeconds(10));
        errReader.join(Duration.ofSeconds(10));
    }

    /** Kills the channel without waiting (closing a sandbox while a command runs). */
    public void destroy() {
        channel.destroy();
    }

    /** Waits (a few seconds at most) for the channel to end after {@link #destroy}. */
    public void awaitExit() {
        channel.awaitExit();
    }

    private void pump(InputStream in, boolean stdout) {
        byte[] buf = new byte[64 * 1024];
        try (in) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                Pending p = current;
                if (p != null && n > 0) {
                    p.feed(stdout, buf, n);
                }
            }
        } catch (IOException | UncheckedIOException ignored) {
            // the channel ended
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
}
