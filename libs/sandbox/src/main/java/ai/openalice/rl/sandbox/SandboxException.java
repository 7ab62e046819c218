package ai.openalice.rl.sandbox;

/** An infrastructure failure: the sandbox, not the agent's command, failed. Callers retry; they never score it. */
public class SandboxException extends RuntimeException {

    /** What failed, in terms an operator can act on. */
    public enum Reason {
        /** The workspace source (repository, commit, directory, tarball) could not be materialised. */
        WORKSPACE_UNAVAILABLE,
        /** The sandbox could not be started (bubblewrap missing or refused, pod not schedulable). */
        START_FAILED,
        /** The sandbox died or vanished under a command (pod deleted or evicted, node lost): the back end's doing. */
        SANDBOX_DIED,
        /**
         * The agent's own command took the sandbox past its limits and the sandbox ended (its
         * container killed for memory over its limit): not the back end's doing, so not played
         * again for free.
         */
        LIMIT_EXCEEDED,
        /** The backend (Kubernetes API, host tools) did not answer. */
        BACKEND_UNAVAILABLE,
        /** The sandbox was already closed. */
        CLOSED,
        /** Host-side I/O failed (disk, permissions). */
        IO
    }

    private final Reason reason;

    public SandboxException(Reason reason, String message) {
        super(reason + ": " + message);
        this.reason = reason;
    }

    public SandboxException(Reason reason, String message, Throwable cause) {
        super(reason + ": " + message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
