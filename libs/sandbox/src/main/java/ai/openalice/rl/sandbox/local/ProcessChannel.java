package ai.openalice.rl.sandbox.local;

import ai.openalice.rl.sandbox.SandboxException;
import ai.openalice.rl.sandbox.shell.Channel;
import ai.openalice.rl.sandbox.shell.Supervisor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** A local sandbox's supervisor runs in bubblewrap's process: killing it ends the sandbox's pid namespace, and every process in it. */
final class ProcessChannel implements Channel {
    /**
     * What bubblewrap runs: {@link Supervisor#LAUNCH} with every signal at its default first — a
     * service started in the background of a shell inherits SIGINT and SIGQUIT ignored, and bash
     * cannot undo that for the commands it runs.
     */
    static final List<String> PROGRAM = List.of("/usr/bin/env", "--default-signal", "/bin/bash", "-c", Supervisor.LAUNCH, Supervisor.NAME);

    private final Process process;

    private ProcessChannel(Process process) {
        this.process = process;
    }

    /** Starts {@code commandLine} (bubblewrap running {@link #PROGRAM}) in {@code dir}. */
    static ProcessChannel start(List<String> commandLine, Path dir) {
        try {
            return new ProcessChannel(new ProcessBuilder(commandLine).directory(dir.toFile()).start());
        } catch (IOException e) {
            throw new SandboxException(SandboxException.Reason.START_FAILED, "cannot start bubblewrap: " + e.getMessage(), e);
        }
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

    int exitValue() {
        return process.isAlive() ? -1 : process.exitValue();
    }

    /** The host pids of this sandbox's own processes: bubblewrap and the supervisor it started. */
    Set<Long> pids() {
        var pids = new HashSet<Long>();
        pids.add(process.pid());
        process.children().forEach(c -> pids.add(c.pid()));
        return pids;
    }
}
