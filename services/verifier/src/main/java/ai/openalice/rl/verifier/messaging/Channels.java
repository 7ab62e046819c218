package ai.openalice.rl.verifier.messaging;

/** Channel names of the verifier (their topics are set in application.properties). */
public final class Channels {
    public static final String TASKS_ACCEPTED = "tasks-accepted";
    public static final String ROLLOUTS_COMPLETED = "rollouts-completed";
    public static final String VERIFICATIONS_COMPLETED = "verifications-completed";

    private Channels() {}
}
