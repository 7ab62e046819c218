package ai.openalice.rl.servicekit;

/**
 * An event that cannot be read (not JSON, the wrong type, a missing field). Thrown from an
 * {@code @Incoming} method, it sends the record to the channel's dead-letter topic with this
 * message as its {@code dead-letter-reason}; no stack trace is filled in (the reason says it all).
 */
public class MalformedEventException extends RuntimeException {
    public MalformedEventException(String reason) {
        super(reason, null, false, false);
    }
}
