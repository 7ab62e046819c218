package ai.openalice.rl.sandbox;

import java.time.Duration;

/**
 * An isolated workspace where an agent's commands run. A command's own failure (non-zero exit,
 * timeout, output cut) is an {@link ExecResult}; a failure of the sandbox itself (it died, its pod
 * vanished, the backend is unreachable) is a {@link SandboxException} — never a reward of 0.
 *
 * <p>File paths are relative to the workspace root (absolute paths inside the workspace are
 * accepted); {@code ..}, other absolute paths and symlinks that lead outside are refused with a
 * {@link PathEscapeException}.
 */
public interface Sandbox extends AutoCloseable {

    String id();

    /** Runs {@code command} with {@code bash -c} at the workspace root; kills the whole process tree at the timeout. */
    ExecResult exec(String command, Duration timeout);

    /** The file's content (UTF-8); {@link java.nio.file.NoSuchFileException} wrapped as a {@link SandboxFileException}. */
    String readFile(String path);

    /** Creates or replaces the file (parents created). */
    void writeFile(String path, String content);

    /** Whether the path exists, and whether it is a directory. */
    FileKind stat(String path);

    /** Unified diff (git, binary-safe) of the workspace against its base, untracked files included. */
    String diff();

    /** Where the workspace is mounted inside the sandbox (e.g. {@code /workspace}). */
    String workdir();

    /** Releases everything: processes, workspace, leases. Idempotent. */
    @Override
    void close();

    /** What is at a path. */
    enum FileKind { MISSING, FILE, DIRECTORY }
}
