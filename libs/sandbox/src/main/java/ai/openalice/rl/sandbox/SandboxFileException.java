package ai.openalice.rl.sandbox;

/** A file operation the agent asked for cannot be done (missing file, a directory, not UTF-8): its problem, not the sandbox's. */
public class SandboxFileException extends RuntimeException {
    public SandboxFileException(String message) {
        super(message);
    }
}
