package ai.openalice.rl.policy;

/** The policy could not answer (server down, model not loaded, runtime error): an infrastructure failure of the episode. */
public class PolicyException extends RuntimeException {
    public PolicyException(String message) {
        super(message);
    }

    public PolicyException(String message, Throwable cause) {
        super(message, cause);
    }
}
