package ai.openalice.rl.model.checkpoint;

/** A checkpoint that cannot be used, and why (missing file, wrong sha256, unknown format, unreadable). */
public class CheckpointException extends RuntimeException {

    /** What is wrong with it. */
    public enum Reason { MISSING, CORRUPT, INCOMPATIBLE, IO }

    private final Reason reason;

    public CheckpointException(Reason reason, String message) {
        super(reason + ": " + message);
        this.reason = reason;
    }

    public CheckpointException(Reason reason, String message, Throwable cause) {
        super(reason + ": " + message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
