package ai.openalice.rl.events;

import java.util.Map;

/** What one trainer step did: loss and policy statistics, data accounting, and where the time went. */
public record TrainingMetrics(
        long step,
        long policyVersion,
        double loss,
        Double clipFraction,
        Double approxKl,
        Double entropy,
        Double meanReward,
        Double rExecRate,
        Double sPrmMean,
        long samples,
        long tokens,
        GroupCounts groups,
        Map<String, Long> dropped,
        Map<String, Long> staleness,
        long waitMs,
        long computeMs) implements EventPayload {

    public static final String KEY = "trainer";

    public TrainingMetrics {
        dropped = Map.copyOf(dropped);
        staleness = Map.copyOf(staleness);
    }

    /** Groups by outcome: none solved, all solved, some solved. */
    public record GroupCounts(long solveNone, long solveAll, long partial) {}

    @Override
    public String key() {
        return KEY;
    }
}
