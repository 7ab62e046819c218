package ai.openalice.rl.verifier.service;

/** An event that cannot be processed as it is; the message is the reason sent with it to the dead-letter topic. */
public class MalformedEventException extends RuntimeException {
    public MalformedEventException(String reason) {
        super(reason, null, false, false);
    }
}
