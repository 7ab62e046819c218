package ai.openalice.rl.trainer.messaging;

/** Channel names of this service, in one place (their topics are set in application.properties). */
public final class Channels {
    public static final String CHECKPOINTS_PUBLISHED = "checkpoints-published";
    public static final String TRAINING_METRICS = "training-metrics";
    public static final String REWARDS_SCORED = "rewards-scored";

    private Channels() {}
}
