package ai.openalice.rl.core.filter;

import java.util.ArrayList;
import java.util.List;

/**
 * Compact filtering (DeepSWE): masks trajectories that ended by hitting max context, max steps or
 * the episode timeout — each switchable — so that the policy is not punished for running out of
 * budget on a long but sound attempt. Infra errors are always masked: they are not the policy's doing.
 * Masked rollouts leave their group's baseline (they are not a reward of 0).
 */
public record CompactFilter(boolean maskMaxContext, boolean maskMaxSteps, boolean maskTimeout) {

    /** Why a rollout was masked. */
    public enum Why implements DropReason {
        INFRA_ERROR("infra_error", "an infrastructure failure, not the policy's doing"),
        MAX_CONTEXT("max_context", "ran out of context"),
        MAX_STEPS("max_steps", "ran out of steps"),
        TIMEOUT("timeout", "ran out of time");

        private final String wire;
        private final String sentence;

        Why(String wire, String sentence) {
            this.wire = wire;
            this.sentence = sentence;
        }

        @Override
        public String wire() { return wire; }

        @Override
        public String sentence() { return sentence; }
    }

    /** DeepSWE's setting: all three masked. */
    public static CompactFilter deepSwe() {
        return new CompactFilter(true, true, true);
    }

    /** The reason {@code outcome} is masked, or null when it is kept. */
    public Why maskReason(RolloutOutcome outcome) {
        return switch (outcome.end()) {
            case INFRA_ERROR -> Why.INFRA_ERROR;
            case MAX_CONTEXT -> maskMaxContext ? Why.MAX_CONTEXT : null;
            case MAX_STEPS -> maskMaxSteps ? Why.MAX_STEPS : null;
            case TIMEOUT -> maskTimeout ? Why.TIMEOUT : null;
            case SUBMITTED -> null;
        };
    }

    public FilterResult<RolloutOutcome> apply(List<RolloutOutcome> outcomes) {
        var kept = new ArrayList<RolloutOutcome>();
        var dropped = new ArrayList<FilterResult.Dropped<RolloutOutcome>>();
        for (RolloutOutcome o : outcomes) {
            Why reason = maskReason(o);
            if (reason == null) {
                kept.add(o);
            } else {
                dropped.add(new FilterResult.Dropped<>(o, reason));
            }
        }
        return FilterResult.of(kept, dropped);
    }
}
