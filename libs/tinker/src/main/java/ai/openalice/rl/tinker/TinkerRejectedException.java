package ai.openalice.rl.tinker;

/** The engine refused a request (a 4xx, or a future that failed): retrying the same request cannot help. The message names what it refused. */
public class TinkerRejectedException extends RuntimeException {
    private final int status;

    public TinkerRejectedException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** The HTTP status the refusal came with. */
    public int status() {
        return status;
    }
}
