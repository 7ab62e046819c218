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

    public static final String INFRA_ERROR = "infra_error";
    public static final String MAX_CONTEXT = "max_context";
    public static final String MAX_STEPS = "max_steps";
    public static final String TIMEOUT = "timeout";

    /** DeepSWE's setting: all three masked. */
    public static CompactFilter deepSwe() {
        return new CompactFilter(true, true, true);
    }

    /** The reason {@code outcome} is masked, or null when it is kept. */
    public String maskReason(RolloutOutcome outcome) {
        return switch (outcome.end()) {
            case INFRA_ERROR -> INFRA_ERROR;
            case MAX_CONTEXT -> maskMaxContext ? MAX_CONTEXT : null;
            case MAX_STEPS -> maskMaxSteps ? MAX_STEPS : null;
            case TIMEOUT -> maskTimeout ? TIMEOUT : null;
            case SUBMITTED -> null;
        };
    }

    public FilterResult<RolloutOutcome> apply(List<RolloutOutcome> outcomes) {
        var kept = new ArrayList<RolloutOutcome>();
        var dropped = new ArrayList<FilterResult.Dropped<RolloutOutcome>>();
        for (RolloutOutcome o : outcomes) {
            String reason = maskReason(o);
            if (reason == null) {
                kept.add(o);
            } else {
                dropped.add(new FilterResult.Dropped<>(o, reason));
            }
        }
        return FilterResult.of(kept, dropped);
    }
}
