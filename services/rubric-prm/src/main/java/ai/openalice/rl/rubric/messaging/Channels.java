package ai.openalice.rl.rubric.messaging;

/** Channel names of this service, in one place (their topics are set in application.properties). */
public final class Channels {
    public static final String REWARDS_SCORED = "rewards-scored";
    public static final String TASKS_ACCEPTED = "tasks-accepted";
    public static final String VERIFICATIONS_COMPLETED = "verifications-completed";

    private Channels() {}
}
