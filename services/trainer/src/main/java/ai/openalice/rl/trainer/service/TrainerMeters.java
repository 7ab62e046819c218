package ai.openalice.rl.trainer.service;

import ai.openalice.rl.events.TrainingMetrics;
import ai.openalice.rl.servicekit.DiskSpace;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** The per-step figures as Prometheus metrics ({@code trainer_*}). */
public final class TrainerMeters {
    private final MeterRegistry registry;
    private final Map<String, AtomicLong> gauges = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> droppedSoFar = new ConcurrentHashMap<>();

    public TrainerMeters(MeterRegistry registry) {
        this.registry = registry;
        // the batch's reward figures exist from the start, not a value until a step has one (NaN: a gap on a chart, not a 0)
        for (String name : new String[] {"trainer_mean_reward", "trainer_r_exec_rate", "trainer_s_prm_mean"}) {
            gauge(name, Double.NaN);
        }
        // and the step's counters at 0, so that a rate over them reads 0 rather than nothing before this process's first step
        for (String name : new String[] {"trainer_samples_total", "trainer_tokens_total", "trainer_wait_seconds_total", "trainer_compute_seconds_total"}) {
            registry.counter(name);
        }
    }

    /** trainer_learner_engine_away: 1 while the learner's engine (trainer.learner=tinker) is away and waited for. */
    void engineAway(AtomicLong away) {
        registry.gauge("trainer_learner_engine_away", away, AtomicLong::get);
    }

    /** The checkpoints' volume: its free bytes, and how often a checkpoint met it full and waited for room. */
    void disk(Path checkpoints, AtomicLong fullVolumeWaits) {
        registry.gauge("trainer_disk_free_bytes", checkpoints, p -> DiskSpace.usableBytes(p));
        registry.more().counter("trainer_disk_full_waits_total", List.of(), fullVolumeWaits);
    }

    private void gauge(String name, double value) {
        gauges.computeIfAbsent(name, n -> registry.gauge(n, new AtomicLong(), a -> Double.longBitsToDouble(a.get())))
                .set(Double.doubleToLongBits(value));
    }

    /** Where a (re)started trainer stands, before its first step: trainer_step and trainer_policy_version. */
    void at(long step, long policyVersion) {
        gauge("trainer_step", step);
        gauge("trainer_policy_version", policyVersion);
    }

    void step(TrainingMetrics m, double gradNorm, double lr) {
        gauge("trainer_step", m.step());
        gauge("trainer_loss", m.loss());
        gauge("trainer_grad_norm", gradNorm);
        gauge("trainer_learning_rate", lr);
        gauge("trainer_entropy", m.entropy());
        gauge("trainer_approx_kl", m.approxKl());
        if (m.clipFraction() != null) {
            gauge("trainer_clip_fraction", m.clipFraction());
        }
        if (m.meanReward() != null) {
            gauge("trainer_mean_reward", m.meanReward());
        }
        if (m.rExecRate() != null) {
            gauge("trainer_r_exec_rate", m.rExecRate());
        }
        if (m.sPrmMean() != null) {
            gauge("trainer_s_prm_mean", m.sPrmMean());
        }
        gauge("trainer_tokens_per_second", m.computeMs() == 0 ? 0 : m.tokens() * 1000.0 / m.computeMs());
        registry.counter("trainer_samples_total").increment(m.samples());
        registry.counter("trainer_tokens_total").increment(m.tokens());
        registry.counter("trainer_wait_seconds_total").increment(m.waitMs() / 1000.0);
        registry.counter("trainer_compute_seconds_total").increment(m.computeMs() / 1000.0);
        registry.counter("trainer_groups_total", "solve", "none").increment(m.groups().solveNone());
        registry.counter("trainer_groups_total", "solve", "all").increment(m.groups().solveAll());
        registry.counter("trainer_groups_total", "solve", "partial").increment(m.groups().partial());
        // drops are counted when they happen (dropped), not again with the step that follows them
    }

    void dropped(Map<String, Long> byReason) {
        byReason.forEach((reason, n) -> {
            registry.counter("trainer_dropped_total", "reason", reason).increment(n);
            droppedSoFar.computeIfAbsent(reason, r -> new LongAdder()).add(n);
        });
    }

    /** What this process has left out so far, by reason (groups, or single rollouts for the per-rollout reasons) — as {@code trainer_dropped_total}. */
    public Map<String, Long> droppedSoFar() {
        var out = new TreeMap<String, Long>();
        droppedSoFar.forEach((reason, n) -> out.put(reason, n.sum()));
        return out;
    }

    void version(long v) {
        gauge("trainer_policy_version", v);
    }
}
