package ai.openalice.rl.sandbox;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a trusted helper command on the host (git, tar, mount) with a deadline; output captured. */
public final class HostCommand {
    private HostCommand() {}

    /** Exit code and combined output of a finished helper command. */
    public record Result(int exitCode, String output) {
        public boolean ok() {
            return exitCode == 0;
        }
    }

    public static Result run(List<String> command, Path cwd, Duration timeout) throws IOException {
        return run(command, cwd, timeout, null);
    }

    public static Result run(List<String> command, Path cwd, Duration timeout, byte[] stdin) throws IOException {
        var pb = new ProcessBuilder(command).redirectErrorStream(true);
        if (cwd != null) {
            pb.directory(cwd.toFile());
        }
        pb.environment().put("LC_ALL", "C");
        pb.environment().put("GIT_CONFIG_NOSYSTEM", "1");
        pb.environment().put("GIT_CONFIG_GLOBAL", "/dev/null");
        Process p = pb.start();
        var out = new OutputCollector(256 * 1024);
        Thread reader = PipeReaders.drain(p.getInputStream(), out);
        try (var os = p.getOutputStream()) {
            if (stdin != null) {
                os.write(stdin);
            }
        } catch (IOException ignored) {
            // the command does not read its input
        }
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
                throw new IOException(String.join(" ", command) + " did not finish within " + timeout);
            }
            reader.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + command.getFirst(), e);
        }
        return new Result(p.exitValue(), out.text());
    }

    /** Runs the command and fails with its output when it does not exit 0. */
    public static String check(List<String> command, Path cwd, Duration timeout) throws IOException {
        Result r = run(command, cwd, timeout);
        if (!r.ok()) {
            throw new IOException(String.join(" ", command) + " exited " + r.exitCode() + ": " + r.output().strip());
        }
        return r.output();
    }
}
