package ai.openalice.rl.tracking;

/** MLflow is away or failing (no answer, 5xx, 429): the request is to be sent again later, not given up. */
public class MlflowUnavailableException extends RuntimeException {
    public MlflowUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
