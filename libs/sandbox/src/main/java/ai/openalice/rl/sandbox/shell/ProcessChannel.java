package ai.openalice.rl.sandbox.shell;

import java.io.InputStream;
import java.io.OutputStream;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A supervisor's channel that is a host process: a local sandbox's bubblewrap (killing it ends the
 * sandbox's pid namespace, and every process in it), or a test's stand-in for a pod's container.
 */
public final class ProcessChannel implements Channel {
    private final Process process;

    public ProcessChannel(Process process) {
        this.process = process;
    }

    @Override
    public OutputStream stdin() {
        return process.getOutputStream();
    }

    @Override
    public InputStream stdout() {
        return process.getInputStream();
    }

    @Override
    public InputStream stderr() {
        return process.getErrorStream();
    }

    @Override
    public boolean alive() {
        return process.isAlive();
    }

    @Override
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void destroy() {
        process.destroyForcibly();
    }

    @Override
    public void awaitExit() {
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Its exit status, or -1 while it runs. */
    public int exitValue() {
        return process.isAlive() ? -1 : process.exitValue();
    }

    /** The host pids of the process and its children (a local sandbox's: bubblewrap and the supervisor it started). */
    public Set<Long> pids() {
        var pids = new HashSet<Long>();
        pids.add(process.pid());
        process.children().forEach(c -> pids.add(c.pid()));
        return pids;
    }
}
