package ai.openalice.rl.sandbox;

/** A path that leads outside the workspace ({@code ..}, an absolute path elsewhere, a symlink pointing out). */
public class PathEscapeException extends SandboxFileException {
    public PathEscapeException(String message) {
        super(message);
    }
}
