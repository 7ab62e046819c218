package ai.openalice.rl.agent.tools;

/** What the agent sees after a tool call; {@code terminal} ends the episode (submit). */
public record Observation(String text, boolean error, boolean terminal) {

    public static Observation ok(String text) {
        return new Observation(text, false, false);
    }

    public static Observation error(String text) {
        return new Observation(text, true, false);
    }

    public static Observation end(String text) {
        return new Observation(text, false, true);
    }
}
