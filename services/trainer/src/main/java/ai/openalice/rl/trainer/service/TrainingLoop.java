package ai.openalice.rl.trainer.service;

import ai.openalice.rl.artifacts.ArtifactStore;
import ai.openalice.rl.core.filter.CompactFilter;
import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.events.CheckpointPublished;
import ai.openalice.rl.events.Envelope;
import ai.openalice.rl.events.TrainingMetrics;
import ai.openalice.rl.events.TrajectoryRef;
import ai.openalice.rl.events.Turn;
import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.djl.Gpt;
import ai.openalice.rl.model.learner.PolicyLearner;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.trainer.config.TrainerConfig;
import ai.openalice.rl.trainer.repository.TrainerStore;
import ai.openalice.rl.trainer.tinker.TinkerLearner;
import java.net.URI;
import java.nio.file.Path;
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
    /** The run in MLflow and the episodes' traces ({@code trainer.tracking.*}). */
    private final RunTracking tracking;
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
        this.learners = new Learners(config, aggregation);
        this.tinker = config.learner() == TrainerConfig.LearnerKind.TINKER ? new TinkerLearners(config) : null;
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
        var latest = store.latest();
        if (tinker != null) {
            startOnTinker(latest);
            return;
        }
        if (latest.isPresent()) {
            var s = PolicyModels.resume(Path.of(latest.get().dir()), config.initModel());
            learner = learners.djl(s.model(), s.optimizer(), s.optimizerStep());
            step = latest.get().step();
            checkpointStep = step;
            policyVersion = latest.get().policyVersion();
            writer.announce(latest.get(), terms());
            LOG.infof("resumed from checkpoint v%d (step %d) at %s: %s; terms %s", policyVersion, step, latest.get().dir(), s.description(), terms());
            return;
        }
        PolicyModels.Start s;
        if (config.initCheckpoint().isPresent()) {
            var c = PolicyModels.resume(config.initCheckpoint().get(), config.initModel());
            var optimizer = initialOptimizer(c.optimizer(), config.initOptimizer());
            s = new PolicyModels.Start(c.model(), optimizer, optimizer.isEmpty() ? 0 : c.optimizerStep(), config.initCheckpoint().get() + ": "
                    + c.description() + ", " + (optimizer.isEmpty() ? "fresh optimizer state" : "its optimizer state at step " + c.optimizerStep()));
        } else if (config.initModel().isPresent()) {
            var l = config.lora();
            s = PolicyModels.fromHf(config.initModel().get(), config.initAdapter(), new PolicyModels.Lora(l.rank(), l.alpha(), l.targets(), l.rslora()),
                    config.seed());
        } else {
            var m = config.model();
            var gc = new GptConfig(new ByteTokenizer().vocabSize(), m.contextLength(), m.layers(), m.heads(), m.width());
            s = new PolicyModels.Start(Gpt.initialise(gc, config.seed()), Map.of(), 0,
                    "random weights (%,d parameters, seed %d)".formatted(gc.parameterCount(), config.seed()));
        }
        learner = learners.djl(s.model(), s.optimizer(), s.optimizerStep());
        LOG.infof("starting from %s", s.description());
        step = 0;
        checkpointStep = 0;
        policyVersion = 0;
        writer.write(learner, 0, 0, Map.of(), List.of(), terms());
    }

    /**
     * The optimizer state to start with from an init checkpoint: its own when {@code keep} and it has
     * one (continuing the same kind of training: no second warm-up, Adam's moments intact), else none
     * (a new kind of training, e.g. RL after imitation, whose gradients differ in scale).
     */
    static Map<String, float[]> initialOptimizer(Map<String, float[]> init, boolean keep) {
        return keep ? init : Map.of();
    }

    /**
     * {@code trainer.learner=tinker}: the latest checkpoint's engine state resumed, or a new adapter
     * published as v0. An init-checkpoint is not taken (the engine starts from the base model).
     */
    private void startOnTinker(Optional<TrainerStore.Registered> latest) {
        if (config.initCheckpoint().isPresent() || config.initAdapter().isPresent()) {
            throw new IllegalArgumentException("trainer.learner=tinker starts a new adapter over trainer.init-model on the engine:"
                    + " trainer.init-checkpoint and trainer.init-adapter are not taken");
        }
        if (latest.isPresent()) {
            learner = tinker.resume(Path.of(latest.get().dir()), learners::loss, learners.schedule());
            step = latest.get().step();
            checkpointStep = step;
            policyVersion = latest.get().policyVersion();
            writer.announce(latest.get(), terms());
            LOG.infof("resumed from checkpoint v%d (step %d) at %s on the Tinker engine; terms %s", policyVersion, step, latest.get().dir(), terms());
            return;
        }
        learner = tinker.create(learners::loss, learners.schedule());
        step = 0;
        checkpointStep = 0;
        policyVersion = 0;
        writer.write(learner, 0, 0, Map.of(), List.of(), terms());
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
            } catch (TinkerLearner.StepsLostException e) {
                rewind(e);
            } catch (RuntimeException e) {
                LOG.errorf(e, "training step failed at step %d; retrying after a pause", step + 1);
                sleep(5000);
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
            fresh = sft ? fresh : refuseOffTemperature(fresh, batch);
            fresh = refuseMissingArtifacts(fresh, batch);
            var screen = BatchPlan.of(fresh, policyVersion, config.maxStaleness(), config.advantage(), sft, this::turns,
                    config.loss().compactFilter() ? CompactFilter.deepSwe() : new CompactFilter(false, false, false),
                    config.dynamicSampling());
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
        var stats = sft ? learner.sft(built.batch(), config.sftContextWeight()) : learner.rl(built.batch());
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
        pending.add(new TrainerStore.Pending(step, List.copyOf(batch.groups()), built.batch().rolloutIds()));
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

    /** Settles, as dropped, the groups sampled at another temperature than the one the loss uses; returns the rest. */
    private List<TrainerStore.ReadyGroup> refuseOffTemperature(List<TrainerStore.ReadyGroup> fresh, StepTally batch) {
        var off = TemperatureScreen.offTemperature(fresh, config.loss().temperature());
        if (off.isEmpty()) {
            return fresh;
        }
        store.drop(off);
        meters.dropped(Map.of("temperature", (long) off.size()));
        batch.dropped("temperature", off.size());
        off.forEach((group, why) -> LOG.warnf("group %s refused: %s", group, why));
        return fresh.stream().filter(g -> !off.containsKey(g.groupId())).toList();
    }

    /**
     * Settles, as dropped (artifact_missing), the groups with a member whose trajectory file is gone
     * (pruned by the runner's retention, a lost volume): the step goes on without them, instead of
     * failing on them again and again.
     */
    private List<TrainerStore.ReadyGroup> refuseMissingArtifacts(List<TrainerStore.ReadyGroup> fresh, StepTally batch) {
        var missing = new LinkedHashMap<UUID, String>();
        for (var g : fresh) {
            for (var m : g.members()) {
                String uri = missingArtifact(artifacts, m);
                if (uri != null) {
                    missing.put(g.groupId(), "the trajectory of " + m.rolloutId() + " is gone from the artifact store (" + uri + ")");
                    break;
                }
            }
        }
        if (missing.isEmpty()) {
            return fresh;
        }
        store.drop(missing);
        meters.dropped(Map.of("artifact_missing", (long) missing.size()));
        batch.dropped("artifact_missing", missing.size());
        missing.forEach((group, why) -> LOG.warnf("group %s refused: %s", group, why));
        return fresh.stream().filter(g -> !missing.containsKey(g.groupId())).toList();
    }

    /** The URI of a member's stored trajectory when the file is not there (null: inline, or present). */
    static String missingArtifact(ArtifactStore artifacts, TrainerStore.Member m) {
        if (m.infra() || m.masked() || !(m.trajectory() instanceof TrajectoryRef.Stored s)) { // only members trained on are read
            return null;
        }
        return artifacts.exists(s.artifact()) ? null : s.artifact().uri();
    }

    private List<Turn> turns(TrainerStore.Member m) {
        try {
            // a stored one is checked against the sha256 the event carries: a file replaced or cut short is refused, not trained on
            return artifacts.trajectory(m.trajectory()).turns();
        } catch (IllegalStateException e) {
            throw new IllegalStateException(m.rolloutId() + ": " + e.getMessage(), e);
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
