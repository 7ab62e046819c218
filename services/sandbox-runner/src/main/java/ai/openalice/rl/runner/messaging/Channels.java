package ai.openalice.rl.runner.messaging;

/** Channel names of this service, in one place (their topics are set in application.properties). */
public final class Channels {
    public static final String CHECKPOINTS_PUBLISHED = "checkpoints-published";
    public static final String ROLLOUTS_COMPLETED = "rollouts-completed";
    public static final String ROLLOUTS_REQUESTED = "rollouts-requested";

    private Channels() {}
}
