package ai.openalice.rl.trainer.service;

import ai.openalice.rl.core.filter.DynamicSampling;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a step's metrics report about every group screened while its batch was filled — the ones
 * trained on and the ones dropped — without keeping the dropped groups themselves.
 */
final class StepTally {
    private int none, all, partial, scored, withPrm;
    private double rewardSum, solvedSum, sPrmSum;
    private final Map<String, Long> dropped = new LinkedHashMap<>();

    void add(BatchPlan p) {
        none += p.counts().solveNone();
        all += p.counts().solveAll();
        partial += p.counts().partial();
        scored += p.scored();
        withPrm += p.withPrm();
        rewardSum += p.meanReward() == null ? 0 : p.meanReward() * p.scored();
        solvedSum += p.rExecRate() == null ? 0 : p.rExecRate() * p.scored();
        sPrmSum += p.sPrmMean() == null ? 0 : p.sPrmMean() * p.withPrm();
        p.droppedByReason().forEach(this::dropped);
    }

    void dropped(String reason, long n) {
        dropped.merge(reason, n, Long::sum);
    }

    Map<String, Long> dropped() {
        return dropped;
    }

    DynamicSampling.Counts counts() {
        return new DynamicSampling.Counts(none, all, partial);
    }

    Double meanReward() {
        return scored == 0 ? null : rewardSum / scored;
    }

    Double rExecRate() {
        return scored == 0 ? null : solvedSum / scored;
    }

    Double sPrmMean() {
        return withPrm == 0 ? null : sPrmSum / withPrm;
    }
}
