package ai.openalice.rl.trainer.service;

import ai.openalice.rl.artifacts.ArtifactStore;
import ai.openalice.rl.core.filter.CompactFilter;
import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.TrainingMetrics;
import ai.openalice.rl.model.learner.Learner;
import ai.openalice.rl.model.learner.PolicyLearner;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.retry.Backoff;
import ai.openalice.rl.servicekit.DiskSpace;
import ai.openalice.rl.trainer.config.TrainerConfig;
import ai.openalice.rl.trainer.repository.TrainerStore;
import ai.openalice.rl.trainer.tinker.TinkerLearner;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.jboss.logging.Logger;

/**
 * The trainer's loop, on its own thread: wait for ready groups, plan the batch, take a step,
 * publish its metrics; every {@code checkpoint-every} steps write a checkpoint and commit the
 * ledger with it. Resumes from the registry's latest checkpoint (weights, optimizer state, step,
 * version); with an empty registry it starts from {@code init-checkpoint} or random weights and
 * publishes that as v0, so the inference service and the dispatcher have a version to start from.
 */
public final class TrainingLoop implements Runnable {
    private static final Logger LOG = Logger.getLogger(TrainingLoop.class);

    private final TrainerStore store;
    private final TrainerConfig config;
    private final CheckpointWriter writer;
    private final List<TrainerStore.Pending> pending = new ArrayList<>();
    private final AtomicReference<TrainingMetrics> last = new AtomicReference<>();
    private final TrainerMeters meters;
    private final Aggregation aggregation;
    private final ArtifactStore artifacts;
    /** The built-in learner's settings, shared by both kinds. */
    private final Learners learners;
    /** The Tinker engine's learners ({@code trainer.learner=tinker}); null: DJL's in this process. */
    private final TinkerLearners tinker;
    /** Where the learner starts from: the latest checkpoint, or the run's beginning. */
    private final LearnerStart starts;
    /** The run in MLflow and the episodes' traces ({@code trainer.tracking.*}). */
    private final RunTracking tracking;
    private final BatchScreens screens;
    private final StepFailures failures = new StepFailures();
    /** The checkpoint volume, with trainer.min-free-disk-mib free before each step. */
    private final DiskSpace disk;
    private volatile boolean running = true;
    private PolicyLearner learner;
    private volatile long step;
    /** The step the latest committed checkpoint holds (the run's state a restart resumes from). */
    private volatile long checkpointStep;
    private volatile long policyVersion;

    /**
     * {@code artifacts}: where the runners' stored trajectories are read from (and checked);
     * {@code checkpointBucket}: where checkpoints are copied for the services that read them (empty:
     * they read {@code trainer.artifact-dir}).
     */
    public TrainingLoop(TrainerStore store, TrainerConfig config, TrainerMeters meters, ArtifactStore artifacts,
            Optional<ArtifactStore> checkpointBucket, RunTracking tracking) {
        this.store = store;
        this.tracking = tracking;
        this.artifacts = artifacts;
        this.config = config;
        this.meters = meters;
        this.aggregation = Aggregation.byName(config.loss().aggregation()); // an unknown name stops the start, naming the known ones
        this.writer = new CheckpointWriter(store, config.artifactDir(), new ByteTokenizer().name(),
                new CheckpointWriter.Retention(config.keepCheckpoints(), config.keepCheckpointEvery()), checkpointBucket.map(CheckpointUpload::new));
        meters.disk(config.artifactDir(), writer.fullVolume);
        this.screens = new BatchScreens(store, meters, artifacts);
        this.disk = DiskSpace.of(List.of(config.artifactDir()), config.minFreeDiskMib() << 20);
        this.learners = new Learners(config, aggregation);
        this.tinker = config.learner() == TrainerConfig.LearnerKind.TINKER ? new TinkerLearners(config) : null;
        this.starts = new LearnerStart(config, learners, tinker);
        if (tinker != null) {
            meters.engineAway(tinker.away);
        }
    }

    /** Loads the latest checkpoint, or starts and publishes v0; the step and version gauges read where it stands from the start. */
    public void start() {
        begin();
        meters.at(step, policyVersion);
    }

    private void begin() {
        writer.sweepUnfinished();
        var s = starts.start(store.latest());
        learner = s.learner();
        step = s.step();
        checkpointStep = step;
        policyVersion = s.policyVersion();
        if (s.resumed() != null) {
            writer.announce(s.resumed(), terms());
            LOG.infof("resumed from checkpoint v%d (step %d) at %s: %s; terms %s", policyVersion, step, s.resumed().dir(), s.description(), terms());
        } else {
            LOG.infof("starting from %s", s.description());
            writer.write(learner, 0, 0, Map.of(), List.of(), terms());
        }
    }

    /**
     * The terms this trainer trains under, published with each checkpoint for the dispatcher to
     * follow. In imitation the temperature is the trainer's business only (it fits at 1 whatever
     * the sampling), so it states none and the dispatcher keeps sampling at its own.
     */
    CheckpointPublished.Terms terms() {
        boolean sft = config.mode() == TrainerConfig.Mode.SFT;
        return new CheckpointPublished.Terms(sft ? null : config.loss().temperature(), config.loss().compactFilter(), config.maxStaleness(),
                config.batchGroups() * config.checkpointEvery(), learner.contextLength());
    }

    public long step() {
        return step;
    }

    /**
     * The step of the latest committed checkpoint: steps after it are lost if the trainer stops now
     * (their groups are trained again after a restart).
     */
    public long checkpointStep() {
        return checkpointStep;
    }

    public long policyVersion() {
        return policyVersion;
    }

    /** Groups and rollouts left out since this process started, by reason. */
    public Map<String, Long> droppedSoFar() {
        return meters.droppedSoFar();
    }

    /** Where the steps run: {@code kind} djl, or tinker with the engine's URL and whether it is away (waited for). */
    public Map<String, Object> learnerStatus() {
        return tinker == null ? Map.of("kind", "djl") : tinker.status();
    }

    /** What the loop waits out now ({@code waiting}) and the last batch it dropped for a failed step ({@code lastDroppedBatch}), where there are. */
    public Map<String, Object> failureStatus() {
        return failures.status();
    }

    public TrainingMetrics lastMetrics() {
        return last.get();
    }

    public void stop() {
        running = false;
    }

    @Override
    public void run() {
        while (running) {
            try {
                runOnce();
                if (failures.recovered()) {
                    LOG.infof("training goes on: what step %d waited for is back", step + 1);
                }
            } catch (TinkerLearner.StepsLostException e) {
                rewind(e);
            } catch (RuntimeException e) {
                // around the step (the step itself is judged in stepOrDrop): PostgreSQL or the artifact store away, the checkpoint
                // volume full — waited out for as long as it lasts
                boolean first = failures.waitingSince() == null;
                String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                long pause = failures.pauseAfter(why);
                if (first) {
                    LOG.errorf(e, "step %d is held up; waiting, trying again with jittered pauses up to %d s", step + 1,
                            StepFailures.MAX_PAUSE.toSeconds());
                } else {
                    LOG.warnf("step %d still held up (waiting since %s): %s; next try in %d ms", step + 1, failures.waitingSince(), why, pause);
                }
                sleep(pause);
            }
        }
        if (learner != null) {
            learner.close();
        }
    }

    /**
     * The Tinker engine lost steps taken since the last checkpoint: back to that checkpoint (the
     * engine's state it saved, the registry's step and version); the groups of the lost steps were
     * never committed to the ledger, so they are trained again, once.
     */
    private void rewind(TinkerLearner.StepsLostException e) {
        LOG.warnf("%s; going back to the last checkpoint and training its later groups again", e.getMessage());
        pending.clear();
        if (learner instanceof TinkerLearner t) {
            t.unload(); // set aside: a new model is made from the checkpoint
        }
        learner.close();
        learner = null;
        while (running) {
            try {
                start();
                return;
            } catch (RuntimeException again) {
                LOG.errorf(again, "going back to the last checkpoint failed; retrying after a pause");
                sleep(5000);
            }
        }
    }

    /**
     * Waits for a batch and trains on it; returns whether a step was taken. The batch is filled as in
     * dynamic sampling: ready groups that cannot be trained on (uniform, stale, evaluation, …) are
     * settled as dropped at once, and more are waited for until {@code batch-groups} remain — a step
     * on the survivors of a partly dropped batch would be smaller and noisier, and would advance the
     * policy version faster than groups can be generated, making more of them stale.
     */
    boolean runOnce() {
        String noRoom = StepFailures.noRoom(disk);
        if (noRoom != null) {
            throw new IllegalStateException(noRoom); // waited out by run(), as an outage is
        }
        long waitStart = System.nanoTime();
        Set<UUID> exclude = new HashSet<>();
        pending.forEach(p -> exclude.addAll(p.groups()));
        boolean sft = config.mode() == TrainerConfig.Mode.SFT;
        var batch = new StepTally();
        while (running && batch.groups().size() < config.batchGroups()) {
            var fresh = store.ready(config.batchGroups() - batch.groups().size(), config.groupDeadline(), exclude);
            if (fresh.isEmpty()) {
                sleep(config.poll().toMillis());
                continue;
            }
            fresh.forEach(g -> exclude.add(g.groupId()));
            fresh = sft ? fresh : screens.refuseOffTemperature(fresh, config.loss().temperature(), batch);
            fresh = screens.refuseMissingArtifacts(fresh, batch);
            var screen = plan(fresh, sft, batch);
            store.drop(screen.dropped());
            meters.dropped(screen.droppedByReason());
            batch.add(screen);
        }
        if (!running) {
            return false;
        }
        long waitMs = (System.nanoTime() - waitStart) / 1_000_000;
        long t0 = System.nanoTime();
        var built = SequenceBatch.of(batch.samples(), learner.contextLength(), aggregation,
                config.loss().maxLength() > 0 ? config.loss().maxLength() : learner.contextLength(),
                sft && !config.sftImitateFailedCalls());
        if (!built.rejected().isEmpty()) {
            var counts = new EnumMap<SequenceBatch.Why, Long>(SequenceBatch.Why.class);
            built.rejected().forEach(r -> counts.merge(r.why(), 1L, Long::sum));
            counts.forEach((why, n) -> {
                meters.dropped(Map.of(why.counter(), n));
                batch.dropped(why.counter(), n.intValue());
            });
            built.rejected().forEach(r -> LOG.warnf("rollout %s left out: %s", r.rolloutId(), r.reason()));
        }
        if (built.batch().rows() == 0) {
            store.drop(batch.groups().stream().collect(Collectors.toMap(g -> g, g -> "every member longer than the model's context")));
            return false;
        }
        var stats = stepOrDrop(built.batch(), batch, sft);
        if (stats == null) {
            return false;
        }
        long computeMs = (System.nanoTime() - t0) / 1_000_000;
        if (!Double.isFinite(stats.gradNorm()) || !Double.isFinite(stats.loss())) {
            // the optimizer refused the update; these groups are not trained on (and not retried: they would fail again)
            String why = "non-finite " + (Double.isFinite(stats.loss()) ? "gradient" : "loss") + " (loss " + stats.loss() + ", gradient norm "
                    + stats.gradNorm() + "): update skipped";
            LOG.errorf("step %d: %s; %d group(s) dropped", step + 1, why, batch.groups().size());
            store.drop(batch.groups().stream().collect(Collectors.toMap(g -> g, g -> why)));
            meters.dropped(Map.of("non_finite", (long) batch.groups().size()));
            return false;
        }
        step++;
        pending.add(new TrainerStore.Pending(step, List.copyOf(batch.groups()), built.batch().rolloutIds().stream().distinct().toList()));
        var c = batch.counts();
        var metrics = new TrainingMetrics(step, policyVersion, stats.loss(), sft ? null : stats.clipFraction(), stats.approxKl(), stats.entropy(),
                batch.meanReward(), batch.rExecRate(), batch.sPrmMean(), built.batch().rows(), stats.tokens(),
                new TrainingMetrics.GroupCounts(c.solveNone(), c.solveAll(), c.partial()), batch.dropped(), batch.staleness(), waitMs, computeMs);
        last.set(metrics);
        meters.step(metrics, stats.gradNorm(), stats.lr());
        tracking.step(metrics, stats.gradNorm(), stats.lr());
        var env = Envelope.of(metrics);
        store.enqueue(env);
        LOG.infof("step %d (v%d): %d sequences, %,d tokens, loss %.4f, reward %s, clip %.3f, %d ms (waited %d ms)", step, policyVersion,
                built.batch().rows(), stats.tokens(), stats.loss(), batch.meanReward(), stats.clipFraction(), computeMs, waitMs);
        if (step % config.checkpointEvery() == 0) {
            var summary = new LinkedHashMap<String, Double>();
            summary.put("loss", stats.loss());
            summary.put("tokens", (double) stats.tokens());
            if (batch.meanReward() != null) {
                summary.put("meanReward", batch.meanReward());
            }
            writer.write(learner, policyVersion + 1, step, summary, List.copyOf(pending), terms());
            policyVersion++;
            checkpointStep = step;
            pending.clear();
            tracking.checkpoint(policyVersion, config.artifactDir().resolve("v" + policyVersion));
            meters.version(policyVersion);
        }
        return true;
    }

    /** The plan of {@code fresh}; a group with an unusable trajectory is settled as dropped and the rest planned again. */
    private BatchPlan plan(List<TrainerStore.ReadyGroup> fresh, boolean sft, StepTally batch) {
        while (true) {
            try {
                return BatchPlan.of(fresh, policyVersion, config.maxStaleness(), config.advantage(), sft, screens::turns,
                        config.loss().compactFilter() ? CompactFilter.deepSwe() : new CompactFilter(false, false, false), config.dynamicSampling());
            } catch (BatchScreens.UnusableTrajectory e) {
                var rest = screens.refuseUnusable(fresh, e, batch);
                if (rest.size() == fresh.size()) {
                    throw e; // not one of these groups' members: never loop on it
                }
                fresh = rest;
            }
        }
    }

    /**
     * The step on {@code b}; null when it was not taken: the batch dropped ({@link StepFailures#judge})
     * with its groups settled as dropped and counted, or the loop stopped between tries.
     */
    private Learner.StepStats stepOrDrop(SequenceBatch b, StepTally batch, boolean sft) {
        for (int attempt = 1; ; attempt++) {
            try {
                return sft ? learner.sft(b, config.sftContextWeight()) : learner.rl(b);
            } catch (TinkerLearner.StepsLostException e) {
                throw e;
            } catch (RuntimeException e) {
                if (!running) {
                    return null; // stopping: the batch stays ready for the next start
                }
                var verdict = StepFailures.judge(e, attempt);
                if (!verdict.drop()) {
                    long pause = Backoff.of(StepFailures.FIRST_PAUSE.multipliedBy(attempt), StepFailures.MAX_PAUSE).nextMillis();
                    LOG.warnf(e, "step %d: %s; the same batch again in %d ms", step + 1, verdict.reason(), pause);
                    sleep(pause);
                    continue;
                }
                LOG.errorf(e, "step %d: %s; its %d group(s) dropped, training goes on", step + 1, verdict.reason(), batch.groups().size());
                store.drop(batch.groups().stream().collect(Collectors.toMap(g -> g, g -> verdict.reason(), (x, y) -> x)));
                meters.dropped(Map.of(verdict.counter(), (long) batch.groups().size()));
                failures.dropped(step + 1, batch.groups().size(), verdict);
                return null;
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
