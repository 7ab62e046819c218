package ai.openalice.rl.inference.engine;

/** The serving engine refused or failed a call; {@code unavailable}: it could not be reached (a restart), worth waiting out. */
public class EngineException extends RuntimeException {
    private final boolean unavailable;

    public EngineException(String message, boolean unavailable) {
        super(message);
        this.unavailable = unavailable;
    }

    public boolean unavailable() {
        return unavailable;
    }
}
