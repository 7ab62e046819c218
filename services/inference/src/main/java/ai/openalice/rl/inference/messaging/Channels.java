package ai.openalice.rl.inference.messaging;

/** Channel names of this service, in one place (their topics are set in application.properties). */
public final class Channels {
    public static final String CHECKPOINTS_PUBLISHED = "checkpoints-published";

    private Channels() {}
}
