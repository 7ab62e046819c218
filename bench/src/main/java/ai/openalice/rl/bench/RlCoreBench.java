package ai.openalice.rl.bench;

import ai.openalice.rl.core.advantage.AdvantageEstimators;
import ai.openalice.rl.core.advantage.GroupAdvantageEstimator;
import ai.openalice.rl.core.filter.CompactFilter;
import ai.openalice.rl.core.filter.EndReason;
import ai.openalice.rl.core.filter.RolloutOutcome;
import ai.openalice.rl.core.loss.AdvantageBroadcast;
import ai.openalice.rl.core.loss.PolicyLoss;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.core.loss.TokenBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * rl-core's share of a training step: compact filtering, leave-one-out advantages per group,
 * broadcasting to tokens, and the clip-high loss with its per-token gradient coefficients, for a
 * batch of 512 trajectories × 2,000 completion tokens in groups of 8. The baseline is the least
 * any implementation must do per token — read log-probs and advantage, one exp, accumulate — over
 * the same arrays.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseSerialGC", "-Xmx2g"})
public class RlCoreBench {
    public static final int TRAJECTORIES = 512;
    public static final int TOKENS_PER_TRAJECTORY = 2_000;
    public static final int GROUP = 8;
    public static final long TOKENS = (long) TRAJECTORIES * TOKENS_PER_TRAJECTORY;

    private final GroupAdvantageEstimator loo = AdvantageEstimators.get("loo");
    private final PolicyLossConfig config = PolicyLossConfig.grpoPlusPlus(TOKENS_PER_TRAJECTORY);
    private final CompactFilter compact = CompactFilter.deepSwe();

    private List<RolloutOutcome> outcomes;
    private int[] offsets;
    private double[] logprobs;
    private double[] oldLogprobs;
    private double[] rolloutLogprobs;
    private boolean[] completionMask;

    @Setup
    public void setUp() {
        var rnd = new Random(42);
        EndReason[] ends = EndReason.values();
        outcomes = new ArrayList<>(TRAJECTORIES);
        for (int i = 0; i < TRAJECTORIES; i++) {
            EndReason end = rnd.nextDouble() < 0.85 ? EndReason.SUBMITTED : ends[rnd.nextInt(ends.length)];
            boolean solved = end == EndReason.SUBMITTED && rnd.nextDouble() < 0.4;
            outcomes.add(new RolloutOutcome("r" + i, "g" + (i / GROUP), end, solved ? 0.8 + 0.2 * rnd.nextDouble() : 0.2 * rnd.nextDouble(), solved));
        }
        int n = TRAJECTORIES * TOKENS_PER_TRAJECTORY;
        offsets = new int[TRAJECTORIES + 1];
        for (int s = 0; s <= TRAJECTORIES; s++) {
            offsets[s] = s * TOKENS_PER_TRAJECTORY;
        }
        logprobs = new double[n];
        oldLogprobs = new double[n];
        rolloutLogprobs = new double[n];
        completionMask = new boolean[n];
        for (int i = 0; i < n; i++) {
            oldLogprobs[i] = -rnd.nextDouble() * 4;
            logprobs[i] = oldLogprobs[i] + rnd.nextGaussian() * 0.1;
            rolloutLogprobs[i] = oldLogprobs[i] + rnd.nextGaussian() * 0.05;
            completionMask[i] = rnd.nextDouble() < 0.9;
        }
    }

    /** Filtering, advantages, broadcast and the loss with gradients: what the trainer calls per step. */
    @Benchmark
    public PolicyLoss.Result step() {
        boolean[] valid = new boolean[TRAJECTORIES];
        for (int i = 0; i < TRAJECTORIES; i++) {
            valid[i] = compact.maskReason(outcomes.get(i)) == null;
        }
        double[] seqAdv = new double[TRAJECTORIES];
        double[] rewards = new double[GROUP];
        boolean[] groupValid = new boolean[GROUP];
        for (int g = 0; g < TRAJECTORIES / GROUP; g++) {
            for (int j = 0; j < GROUP; j++) {
                rewards[j] = outcomes.get(g * GROUP + j).reward();
                groupValid[j] = valid[g * GROUP + j];
            }
            double[] a = loo.estimate(rewards, groupValid).advantages();
            System.arraycopy(a, 0, seqAdv, g * GROUP, GROUP);
        }
        double[] tokenAdv = AdvantageBroadcast.perSequence(seqAdv, offsets);
        boolean[] mask = completionMask.clone();
        for (int s = 0; s < TRAJECTORIES; s++) {
            if (!valid[s]) {
                Arrays.fill(mask, offsets[s], offsets[s + 1], false);
            }
        }
        var batch = new TokenBatch(offsets, logprobs, oldLogprobs, rolloutLogprobs, null, null, tokenAdv, mask);
        return PolicyLoss.compute(batch, config);
    }

    /** Baseline: one exp and a multiply-add per token over the same arrays. */
    @Benchmark
    public double bareTokenLoop() {
        double sum = 0;
        for (int i = 0; i < logprobs.length; i++) {
            if (completionMask[i]) {
                sum += Math.exp(logprobs[i] - oldLogprobs[i]) * rolloutLogprobs[i];
            }
        }
        return sum;
    }
}
