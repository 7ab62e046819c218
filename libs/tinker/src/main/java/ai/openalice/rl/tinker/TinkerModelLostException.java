package ai.openalice.rl.tinker;

/**
 * The engine no longer has the model a request names: it restarted (SkyRL keeps sessions and saved
 * states in its database but a model's weights in memory, and answers "Model … not loaded (likely
 * stale request from previous server)") or dropped it. The model must be made again from a saved
 * state; sending the request again cannot help.
 */
public class TinkerModelLostException extends TinkerRejectedException {
    public TinkerModelLostException(int status, String message) {
        super(status, message);
    }

    /** Whether the engine's refusal {@code detail} says the model is gone. */
    static boolean says(String detail) {
        return detail.contains("not loaded") || detail.contains("Model not found") || detail.contains("model not found");
    }
}
