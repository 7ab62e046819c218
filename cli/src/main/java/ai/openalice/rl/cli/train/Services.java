package ai.openalice.rl.cli.train;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The six services with the settings of the main job: the run profile ({@code RunProfile}, the
 * services' own defaults: a small GPT trained on this machine's CPU, 2 layers, width 128, 4,096-token
 * byte context) with this run's options on top, groups of {@code groupSize}, a checkpoint per step.
 * During the warm start the runner replays oracle trajectories and the trainer imitates the solved
 * ones, then the trainer, the runner (now asking the inference service) and the dispatcher restart
 * for RL.
 */
final class Services implements AutoCloseable {
    static final List<String> ALL = List.of("inference", "trainer", "rubric-prm", "verifier", "sandbox-runner", "task-dispatcher");

    /**
     * What a run is made of (the options of {@code alice-rl train}): the sandbox backend, G, groups
     * per RL step, synchronous scheduling, the oracle's failure probability when it generates for RL
     * (null: the model), the rollouts' temperature, a checkpoint to start RL from (null: none), and
     * the warm start's tasks per step and learning rate, and a HuggingFace model to train instead of
     * the built-in one (null: none), and what the tasks need (mirrors, caches).
     */
    record Settings(String sandbox, int groupSize, int batchGroups, boolean sync, Double oracleRl, double temperature, Path initCheckpoint,
            int warmStartBatch, double warmStartLr, double warmStartContextWeight, double lr, boolean compactFilter, boolean submitRequired,
            String lossAggregation, String curriculumCohort, int rolloutWorkers, int inferenceThreads, ModelOptions model,
            TaskOptions tasks) {}

    private final Path state;
    private final Settings s;
    private final Supervisor supervisor;

    Services(Path root, Path state, Infra infra, Settings settings) throws java.io.IOException {
        this.state = state;
        this.s = settings;
        var common = infra.serviceSettings();
        common.addAll(List.of("-Dai.djl.offline=true", "-Dai.djl.pytorch.num_threads=1", "-Dai.djl.pytorch.num_interop_threads=1",
                "-DDJL_CACHE_DIR=" + state.resolve("djl")));
        this.supervisor = new Supervisor(root, state.resolve("logs"), common, infra.serviceEnvironment());
        if (infra.startedKafka()) { // the run's own broker is brought back as its services are; an external one is its owner's
            supervisor.watch("kafka", new Supervisor.Watched() {
                public boolean alive() {
                    return infra.kafkaAlive();
                }

                public void restart() throws Exception {
                    infra.restartKafka();
                }
            });
        }
    }

    Supervisor supervisor() {
        return supervisor;
    }

    /**
     * glibc's allocator for the trainer: every attention tensor of a step (tens to hundreds of MB) is
     * above its mmap threshold, so it was mapped fresh and zeroed by the kernel page by page on every
     * op — half the learner's CPU time was system time. From one heap that keeps what it frees
     * (all threads in one arena, no mmap, no trimming), a step takes half the time ({@code bench/README.md}, trainer).
     */
    static final Map<String, String> LEARNER_MALLOC = Map.of("MALLOC_ARENA_MAX", "1", "MALLOC_MMAP_MAX_", "0",
            "MALLOC_TRIM_THRESHOLD_", String.valueOf(1L << 34), "MALLOC_TOP_PAD_", String.valueOf(1L << 30));

    void startAll(boolean warmStart) throws Exception {
        // A larger heap than the others: two loaded versions may each keep up to 128 MiB of prefix cache.
        supervisor.start("inference", List.of(s.model() != null ? s.model().heap(2) : "-Xmx1g",
                "-Dmp.messaging.incoming.checkpoints-published.auto.offset.reset=earliest", "-Dinference.threads=" + s.inferenceThreads()));
        supervisor.start("trainer", trainer(warmStart ? "sft" : "rl"), LEARNER_MALLOC);
        supervisor.start("rubric-prm", List.of("-Drubric.submit-required=" + s.submitRequired()));
        var verifier = new ArrayList<>(List.of("-Dverifier.sandbox-root=" + state.resolve("sandboxes/verifier")));
        verifier.addAll(s.tasks().verifierArgs());
        supervisor.start("verifier", verifier);
        supervisor.start("sandbox-runner", runner(warmStart, warmStart ? null : s.oracleRl()));
        supervisor.start("task-dispatcher", dispatcher(warmStart));
        supervisor.awaitReady(Duration.ofMinutes(5));
    }

    /** After the warm start: the trainer resumes its checkpoints in RL mode, the runner asks the model, the dispatcher makes groups of G. */
    void switchToRl() throws Exception {
        supervisor.start("trainer", trainer("rl"), LEARNER_MALLOC);
        supervisor.start("sandbox-runner", runner(false, s.oracleRl()));
        supervisor.start("task-dispatcher", dispatcher(false));
        supervisor.awaitReady(Duration.ofMinutes(5));
    }

    /**
     * Asynchronous: two batches in flight while the trainer works on a third, and useful groups paced
     * at most two versions ahead of the trainer; synchronous: one batch per checkpoint. The warm start
     * asks for groups of one — the oracle is deterministic, so G copies of its trajectory would teach
     * no more than one — and the warm start's batch of them per step.
     */
    private List<String> dispatcher(boolean warmStart) {
        int g = warmStart ? 1 : s.groupSize();
        int batch = warmStart ? s.warmStartBatch() : s.batchGroups();
        return List.of("-Ddispatcher.group-size=" + g, "-Ddispatcher.max-in-flight=" + g * batch * (s.sync() ? 1 : 2), "-Ddispatcher.sync=" + s.sync(),
                "-Ddispatcher.pace.groups-per-version=" + batch, "-Ddispatcher.pace.versions-ahead=2",
                "-Ddispatcher.compact-filter=" + s.compactFilter(), "-Ddispatcher.curriculum-cohort=" + s.curriculumCohort(),
                "-Ddispatcher.sampling.temperature=" + s.temperature());
    }

    private List<String> trainer(String mode) {
        int batch = mode.equals("sft") ? s.warmStartBatch() : s.batchGroups();
        var args = new ArrayList<String>();
        if (s.initCheckpoint() != null) {
            args.add("-Dtrainer.init-checkpoint=" + s.initCheckpoint());
            // a further leg of imitation continues Adam and its schedule (restarting them bumped the loss 0.12 → 0.22)
            args.add("-Dtrainer.init-optimizer=" + mode.equals("sft"));
        }
        if (s.model() != null) {
            args.addAll(s.model().trainerArgs());
        }
        args.addAll(List.of("-Dtrainer.mode=" + mode, "-Dtrainer.artifact-dir=" + state.resolve("checkpoints"), "-Dtrainer.batch-groups=" + batch,
                "-Dtrainer.optim.lr=" + (mode.equals("sft") ? s.warmStartLr() : s.lr()),
                "-Dtrainer.sft-context-weight=" + (mode.equals("sft") ? s.warmStartContextWeight() : 0),
                // from random weights a high rate without warm-up spikes the loss (measured at 4e-3: 3.46 → 9.0 at step 7, then stuck at 3.2)
                "-Dtrainer.optim.warmup-steps=" + (mode.equals("sft") ? 20 : 0),
                // imitation fits the data at temperature 1, so that sampling below 1 sharpens what was learnt
                "-Dtrainer.loss.temperature=" + (mode.equals("sft") ? 1.0 : s.temperature()),
                "-Dtrainer.loss.compact-filter=" + s.compactFilter(), "-Dtrainer.loss.aggregation=" + s.lossAggregation()));
        return args;
    }

    /** With {@code oracle}, the runner replays the oracle; {@code failure} (null: none) is then its chance of leaving out the fix. */
    private List<String> runner(boolean oracle, Double failure) {
        if (failure != null) {
            oracle = true;
        }
        var args = new ArrayList<>(List.of("-Drunner.sandbox-backend=" + s.sandbox(), "-Drunner.sandbox-root=" + state.resolve("sandboxes/runner"),
                "-Drunner.artifact-dir=" + state.resolve("artifacts/trajectories"),
                "-Drunner.id=train-runner", "-Drunner.inference-url=" + supervisor.uri("inference", ""),
                "-Dsmallrye.messaging.worker.episodes.max-concurrency=" + s.rolloutWorkers()));
        if (s.model() != null) {
            args.addAll(s.model().runnerArgs());
        }
        args.addAll(s.tasks().runnerArgs());
        if (oracle) {
            args.addAll(List.of("-Drunner.policy=oracle", "-Drunner.oracle-tasks=" + state.resolve("suite/train.jsonl"),
                    "-Drunner.oracle-failure-probability=" + (failure == null ? 0 : failure)));
        }
        return args;
    }

    @Override
    public void close() throws InterruptedException {
        supervisor.close();
    }
}
