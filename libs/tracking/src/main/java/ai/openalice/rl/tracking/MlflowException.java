package ai.openalice.rl.tracking;

/** MLflow refused a request (a 4xx): its {@code error_code} (null when it gave none) and message. */
public class MlflowException extends RuntimeException {
    private final String errorCode;

    public MlflowException(String errorCode, String message) {
        super(message);
        this.errorCode = errorCode;
    }

    public String errorCode() {
        return errorCode;
    }
}
