package ai.openalice.rl.tinker;

/** The engine stayed away (unreachable, or answering 5xx) for longer than the client's outage grace: an infrastructure fault, not a refusal. */
public class TinkerUnavailableException extends RuntimeException {
    public TinkerUnavailableException(String message) {
        super(message);
    }
}
