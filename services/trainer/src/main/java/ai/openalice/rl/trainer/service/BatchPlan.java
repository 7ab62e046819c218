package ai.openalice.rl.trainer.service;

import ai.openalice.rl.core.advantage.AdvantageEstimators;
import ai.openalice.rl.core.advantage.GroupAdvantageEstimator;
import ai.openalice.rl.core.credit.GiGpo;
import ai.openalice.rl.core.filter.CompactFilter;
import ai.openalice.rl.core.filter.DynamicSampling;
import ai.openalice.rl.core.filter.EndReason;
import ai.openalice.rl.core.filter.RolloutOutcome;
import ai.openalice.rl.events.Termination;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.learner.Sample;
import ai.openalice.rl.trainer.repository.TrainerStore;
import ai.openalice.rl.trainer.config.TrainerConfig;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;

/**
 * What a step trains on, decided from ready groups: evaluation groups and groups sampled more
 * than {@code maxStaleness} versions behind are dropped; within a group, infrastructure failures
 * and compact-filtered members (max context, max steps, timeout) leave the baseline; groups whose
 * valid rewards are all equal (or with fewer than two) are dropped (dynamic sampling); the rest
 * get per-member advantages from the group estimator (leave-one-out by default), or per-turn
 * advantages with {@code gigpo} (episode LOO plus step advantages within anchor-state groups:
 * turns that saw the same observation, γ = 1, ω = 1). In {@code sft}
 * mode the solved members are kept instead, without advantages.
 */
public record BatchPlan(List<Sample> samples, List<UUID> groups, Map<UUID, String> dropped, Map<String, Long> droppedByReason,
        Map<String, Long> staleness, DynamicSampling.Counts counts, Double meanReward, Double rExecRate, Double sPrmMean, int scored, int withPrm) {

    public static BatchPlan of(List<TrainerStore.ReadyGroup> ready, long currentVersion, int maxStaleness, String estimator, boolean sft,
            Function<TrainerStore.Member, List<Turn>> turns) {
        return of(ready, currentVersion, maxStaleness, estimator, sft, turns, CompactFilter.deepSwe(), TrainerConfig.DynamicSampling.REWARD);
    }

    /**
     * The same with another compact filter (e.g. none: truncated episodes keep their verdict) and,
     * another dynamic sampling: on the execution outcome (see {@link DynamicSampling#apply(List, boolean)}), or none.
     */
    public static BatchPlan of(List<TrainerStore.ReadyGroup> ready, long currentVersion, int maxStaleness, String estimator, boolean sft,
            Function<TrainerStore.Member, List<Turn>> turns, CompactFilter filter, TrainerConfig.DynamicSampling screen) {
        GiGpo gigpo = estimator.equals("gigpo") ? new GiGpo(AdvantageEstimators.get("loo"), 1.0, 1.0, false) : null;
        GroupAdvantageEstimator adv = gigpo != null ? null : AdvantageEstimators.get(estimator);
        var dropped = new LinkedHashMap<UUID, String>();
        var byReason = new TreeMap<String, Long>();
        var staleness = new TreeMap<String, Long>();
        var samples = new ArrayList<Sample>();
        var used = new ArrayList<UUID>();
        var outcomesOfGroups = new ArrayList<List<RolloutOutcome>>();
        double rewardSum = 0, sPrmSum = 0;
        int scored = 0, solved = 0, withPrm = 0;
        for (var g : ready) {
            if (g.evaluation()) {
                drop(dropped, byReason, g.groupId(), "evaluation", "an evaluation group (never trained on)");
                continue;
            }
            var members = g.members().stream().filter(m -> !m.infra()).toList();
            if (members.isEmpty()) {
                drop(dropped, byReason, g.groupId(), "infra_only", "no member without an infrastructure failure");
                continue;
            }
            long sampled = members.stream().mapToLong(TrainerStore.Member::policyVersion).min().orElseThrow();
            long lag = Math.max(0, currentVersion - sampled);
            if (lag > maxStaleness) {
                drop(dropped, byReason, g.groupId(), "stale", "stale: sampled at v" + sampled + ", trainer at v" + currentVersion + " (max-staleness "
                        + maxStaleness + ")");
                continue;
            }
            var valid = new ArrayList<TrainerStore.Member>();
            var outcomes = new ArrayList<RolloutOutcome>();
            for (var m : members) {
                if (!m.masked()) {
                    rewardSum += m.reward();
                    solved += m.rExec() == 1 ? 1 : 0;
                    scored++;
                    if (m.sPrm() != null) {
                        sPrmSum += m.sPrm();
                        withPrm++;
                    }
                }
                var o = new RolloutOutcome(m.rolloutId().toString(), g.groupId().toString(), end(m.termination()),
                        m.masked() ? 0 : m.reward(), !m.masked() && m.rExec() == 1);
                if (!m.masked() && filter.maskReason(o) == null) {
                    valid.add(m);
                    outcomes.add(o);
                } else {
                    byReason.merge("member_masked", 1L, Long::sum);
                }
            }
            outcomesOfGroups.add(outcomes);
            if (sft) {
                valid.stream().filter(m -> m.rExec() == 1).forEach(m -> samples.add(new Sample(m.rolloutId(), turns.apply(m), 0)));
                if (valid.stream().noneMatch(m -> m.rExec() == 1)) {
                    drop(dropped, byReason, g.groupId(), "none_solved", "no solved member to imitate");
                    continue;
                }
            } else {
                if (screen == TrainerConfig.DynamicSampling.NONE && valid.size() < 2) {
                    drop(dropped, byReason, g.groupId(), DynamicSampling.Why.TOO_FEW_VALID.wire(), DynamicSampling.Why.TOO_FEW_VALID.sentence());
                    continue;
                }
                var single = screen == TrainerConfig.DynamicSampling.NONE ? null
                        : DynamicSampling.apply(List.of(outcomes), screen == TrainerConfig.DynamicSampling.OUTCOME);
                if (single != null && !single.groups().dropped().isEmpty()) {
                    var why = single.groups().dropped().getFirst().reason();
                    drop(dropped, byReason, g.groupId(), why.wire(), why.sentence());
                    continue;
                }
                double[] rewards = valid.stream().mapToDouble(TrainerStore.Member::reward).toArray();
                if (gigpo != null) {
                    var trajectories = new ArrayList<List<Turn>>();
                    var input = new ArrayList<GiGpo.Trajectory>();
                    for (int i = 0; i < valid.size(); i++) {
                        var ts = turns.apply(valid.get(i));
                        trajectories.add(ts);
                        input.add(gigpoTrajectory(rewards[i], ts));
                    }
                    var result = gigpo.compute(input);
                    for (int i = 0; i < valid.size(); i++) {
                        samples.add(new Sample(valid.get(i).rolloutId(), trajectories.get(i), result.episode().advantage(i), result.turnAdvantages()[i]));
                    }
                } else {
                    double[] a = adv.estimate(rewards).advantages();
                    for (int i = 0; i < valid.size(); i++) {
                        samples.add(new Sample(valid.get(i).rolloutId(), turns.apply(valid.get(i)), a[i]));
                    }
                }
            }
            used.add(g.groupId());
            staleness.merge(Long.toString(lag), (long) valid.size(), Long::sum);
        }
        int none = 0, all = 0, partial = 0;
        for (var o : outcomesOfGroups) {
            if (!o.isEmpty()) {
                switch (DynamicSampling.classify(o)) {
                    case SOLVE_NONE -> none++;
                    case SOLVE_ALL -> all++;
                    case PARTIAL -> partial++;
                }
            }
        }
        var counts = new DynamicSampling.Counts(none, all, partial);
        return new BatchPlan(List.copyOf(samples), List.copyOf(used), dropped, byReason, staleness, counts,
                scored == 0 ? null : rewardSum / scored, scored == 0 ? null : (double) solved / scored, withPrm == 0 ? null : sPrmSum / withPrm,
                scored, withPrm);
    }

    /**
     * A trajectory as GiGPO sees it: the reward at the last turn (none before), and each turn's
     * anchor state — what the agent had just been shown (the turn's prompt delta: the task for the
     * first turn, then the last observation), hashed.
     */
    static GiGpo.Trajectory gigpoTrajectory(double reward, List<Turn> turns) {
        double[] r = new double[turns.size()];
        String[] keys = new String[turns.size()];
        for (int t = 0; t < turns.size(); t++) {
            keys[t] = sha256(turns.get(t).promptDeltaTokenIds());
        }
        if (r.length > 0) {
            r[r.length - 1] = reward;
        }
        return new GiGpo.Trajectory(reward, r, keys, true);
    }

    static String sha256(List<Integer> tokens) {
        try {
            var md = MessageDigest.getInstance("SHA-256");
            var buf = ByteBuffer.allocate(4 * tokens.size());
            tokens.forEach(buf::putInt);
            return HexFormat.of().formatHex(md.digest(buf.array()));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void drop(Map<UUID, String> dropped, Map<String, Long> byReason, UUID group, String key, String why) {
        dropped.put(group, why);
        byReason.merge(key, 1L, Long::sum);
    }

    static EndReason end(Termination t) {
        return switch (t) {
            case SUBMITTED -> EndReason.SUBMITTED;
            case MAX_STEPS -> EndReason.MAX_STEPS;
            case MAX_CONTEXT -> EndReason.MAX_CONTEXT;
            case TIMEOUT -> EndReason.TIMEOUT;
            case INFRA_ERROR -> EndReason.INFRA_ERROR;
        };
    }
}
