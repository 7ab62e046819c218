package ai.openalice.rl.dispatcher.messaging;

/** Channel names of this service, in one place (their topics are set in application.properties). */
public final class Channels {
    public static final String ROLLOUTS_REQUESTED = "rollouts-requested";
    public static final String TASKS_REJECTED = "tasks-rejected";
    public static final String TASKS_ACCEPTED_OUT = "tasks-accepted-out";
    public static final String TASKS_SUBMITTED = "tasks-submitted";
    public static final String ROLLOUTS_COMPLETED = "rollouts-completed";
    public static final String VERIFICATIONS_COMPLETED = "verifications-completed";
    public static final String REWARDS_SCORED = "rewards-scored";
    public static final String CHECKPOINTS_PUBLISHED = "checkpoints-published";

    private Channels() {}
}
