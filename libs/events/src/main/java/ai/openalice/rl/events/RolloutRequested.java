package ai.openalice.rl.events;

import java.time.Instant;
import java.util.UUID;

/** One rollout of a GRPO group, to be run by a sandbox-runner before {@code deadline}. */
public record RolloutRequested(
        String taskId,
        UUID groupId,
        UUID rolloutId,
        long policyVersion,
        int groupSize,
        int memberIndex,
        int attempt,
        Mode mode,
        UUID evalRunId,
        AgentTask task,
        Sampling sampling,
        Instant deadline) implements RolloutEvent {

    /** Training rollouts feed the trainer; evaluation rollouts only the eval report. */
    public enum Mode implements WireEnum {
        TRAIN("train"),
        EVAL("eval");

        private final String wire;

        Mode(String wire) { this.wire = wire; }

        @com.fasterxml.jackson.annotation.JsonValue
        @Override
        public String wire() { return wire; }

        @com.fasterxml.jackson.annotation.JsonCreator
        public static Mode of(String value) { return WireEnum.parse(Mode.class, value); }
    }

    /** Sampling parameters for every turn of the episode. */
    public record Sampling(double temperature, double topP, int maxTokensPerTurn, Long seed) {}
}
