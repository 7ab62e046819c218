package ai.openalice.rl.sandbox;

import java.time.Duration;

/**
 * The outcome of one command. Output beyond the cap keeps its head and its tail (where test
 * summaries are) and sets the {@code truncated} flag; {@code exitCode} is -1 when the command
 * was killed at its timeout.
 */
public record ExecResult(
        int exitCode, String stdout, String stderr, boolean stdoutTruncated, boolean stderrTruncated, boolean timedOut,
        Duration duration) {

    public boolean ok() {
        return exitCode == 0 && !timedOut;
    }
}
