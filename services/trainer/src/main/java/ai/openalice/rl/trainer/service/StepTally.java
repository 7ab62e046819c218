package ai.openalice.rl.trainer.service;

import ai.openalice.rl.core.filter.DynamicSampling;
import ai.openalice.rl.model.learner.Sample;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * A step's batch as it is filled, one screened set of ready groups at a time: the samples, groups
 * and staleness of what will be trained on, and what the step's metrics report about every group
 * screened — trained on or dropped — without keeping the dropped groups themselves.
 */
final class StepTally {
    private int none, all, partial, scored, withPrm;
    private double rewardSum, solvedSum, sPrmSum;
    private final Map<String, Long> dropped = new LinkedHashMap<>();
    private final List<Sample> samples = new ArrayList<>();
    private final List<UUID> groups = new ArrayList<>();
    private final Map<String, Long> staleness = new TreeMap<>();

    void add(BatchPlan p) {
        samples.addAll(p.samples());
        groups.addAll(p.groups());
        p.staleness().forEach((lag, n) -> staleness.merge(lag, n, Long::sum));
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

    List<Sample> samples() {
        return samples;
    }

    /** The groups that will be trained on. */
    List<UUID> groups() {
        return groups;
    }

    Map<String, Long> staleness() {
        return staleness;
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
