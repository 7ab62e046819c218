package ai.openalice.rl.cli.train;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * Each service's configuration in an embedded run, as configuration keys and typed values, made
 * from the run's settings in one place and turned into system properties in one place
 * ({@link #jvm}). {@code e2e EmbeddedConfigTest} holds every key a service is given to a key of
 * that service's {@code @ConfigMapping}, so that a renamed key cannot be passed to nothing.
 */
public final class EmbeddedConfig {
    private final RunSettings run;
    private final ModelOptions model;
    private final TaskOptions tasks;
    private final Path state;
    private final int warmStartBatch;

    /** {@code model} null: the built-in model; {@code trainTasks}: the suite's training tasks (a warm-start batch is at most that many). */
    EmbeddedConfig(RunSettings run, ModelOptions model, TaskOptions tasks, Path state, int trainTasks) {
        this.run = run;
        this.model = model;
        this.tasks = tasks;
        this.state = state;
        this.warmStartBatch = Math.min(run.warmStartBatch, trainTasks);
    }

    /** The configuration {@code alice-rl train OPTIONS} gives the services, its state in {@code state} (no task limit on a warm-start batch). */
    public static EmbeddedConfig parse(Path state, String... options) {
        var train = new TrainCommand();
        new CommandLine(train).parseArgs(options);
        return new EmbeddedConfig(train.run, train.modelOptions.given() ? train.modelOptions : null, train.taskOptions, state, Integer.MAX_VALUE);
    }

    /** The trainer's heap: larger with a HuggingFace model (its weights, as float32, four times over); the default otherwise. */
    public String[] trainerHeap() {
        return model != null ? new String[] {model.heap(4)} : new String[0];
    }

    /** The oracle's chance of leaving out the fix when it generates for RL; null when the model does. */
    Double oracleRl() {
        return run.oracleRl;
    }

    /** A larger heap than the others: two loaded versions may each keep up to 128 MiB of prefix cache. */
    public String inferenceHeap() {
        return model != null ? model.heap(2) : "-Xmx1g";
    }

    public Map<String, Object> inference() {
        var c = new LinkedHashMap<String, Object>();
        c.put("mp.messaging.incoming.checkpoints-published.auto.offset.reset", "earliest");
        c.put("inference.threads", run.inferenceThreads);
        return c;
    }

    /** The trainer in {@code mode} sft (the warm start) or rl. */
    public Map<String, Object> trainer(String mode) {
        boolean sft = mode.equals("sft");
        var c = new LinkedHashMap<String, Object>();
        if (run.initCheckpoint != null) {
            c.put("trainer.init-checkpoint", run.initCheckpoint.toAbsolutePath());
            // a further leg of imitation continues Adam and its schedule (restarting them bumped the loss 0.12 → 0.22)
            c.put("trainer.init-optimizer", sft);
        }
        if (model != null) {
            c.putAll(model.trainerConfig());
        }
        c.put("trainer.mode", mode);
        // in the warm start the learner is the only heavy process (the runner replays the oracle), so
        // it gets every core; in RL it leaves the others to sampling and the sandboxes
        c.put("trainer.threads", sft ? Runtime.getRuntime().availableProcessors() : 1);
        c.put("trainer.artifact-dir", state.resolve("checkpoints"));
        c.put("trainer.batch-groups", sft ? warmStartBatch : run.batchGroups);
        c.put("trainer.optim.lr", sft ? run.warmStartLr : run.lr);
        c.put("trainer.sft-context-weight", sft ? run.warmStartContextWeight : 0);
        // from random weights a high rate without warm-up spikes the loss (measured at 4e-3: 3.46 → 9.0 at step 7, then stuck at 3.2)
        c.put("trainer.optim.warmup-steps", sft ? 20 : 0);
        // imitation fits the data at temperature 1, so that sampling below 1 sharpens what was learnt
        c.put("trainer.loss.temperature", sft ? 1.0 : run.temperature);
        c.put("trainer.loss.compact-filter", run.compactFilter);
        c.put("trainer.loss.aggregation", run.lossAggregation);
        if (run.mlflow != null) { // one MLflow run per state folder: the trainer keeps its id, so a warm start and the RL after it are one run
            c.put("trainer.tracking.mlflow", run.mlflow);
            c.put("trainer.tracking.experiment", run.mlflowExperiment);
            c.put("trainer.tracking.run-name", state.getFileName());
        }
        return c;
    }

    public Map<String, Object> rubric() {
        return Map.of("rubric.submit-required", run.submitRequired);
    }

    public Map<String, Object> verifier() {
        var c = new LinkedHashMap<String, Object>();
        c.put("verifier.sandbox-root", state.resolve("sandboxes/verifier"));
        c.put("verifier.artifact-dir", state.resolve("artifacts/logs"));
        c.putAll(tasks.verifierConfig());
        return c;
    }

    /** The runner asking {@code inference}; with {@code oracle} it replays the oracle, which leaves out the fix with probability {@code failure} (null: never). */
    public Map<String, Object> runner(boolean oracle, Double failure, URI inference) {
        var c = new LinkedHashMap<String, Object>();
        c.put("runner.sandbox-backend", run.sandbox);
        c.put("runner.sandbox-root", state.resolve("sandboxes/runner"));
        c.put("runner.artifact-dir", state.resolve("artifacts/trajectories"));
        c.put("runner.id", "train-runner");
        c.put("runner.inference-url", inference);
        c.put("smallrye.messaging.worker.episodes.max-concurrency", run.rolloutWorkers);
        if (model != null) {
            c.putAll(model.runnerConfig());
        }
        c.putAll(tasks.runnerConfig());
        if (oracle || failure != null) {
            c.put("runner.policy", "oracle");
            c.put("runner.oracle-tasks", state.resolve("suite/train.jsonl"));
            c.put("runner.oracle-failure-probability", failure == null ? 0 : failure);
        }
        return c;
    }

    /**
     * Asynchronous: two batches in flight while the trainer works on a third, and useful groups paced
     * at most two versions ahead of the trainer; synchronous: one batch per checkpoint. The warm start
     * asks for groups of one — the oracle is deterministic, so G copies of its trajectory would teach
     * no more than one — and the warm start's batch of them per step.
     */
    public Map<String, Object> dispatcher(boolean warmStart) {
        int g = warmStart ? 1 : run.groupSize;
        int batch = warmStart ? warmStartBatch : run.batchGroups;
        var c = new LinkedHashMap<String, Object>();
        c.put("dispatcher.group-size", g);
        c.put("dispatcher.max-in-flight", g * batch * (run.sync ? 1 : 2));
        c.put("dispatcher.sync", run.sync);
        c.put("dispatcher.pace.groups-per-version", batch);
        c.put("dispatcher.pace.versions-ahead", 2);
        c.put("dispatcher.compact-filter", run.compactFilter);
        c.put("dispatcher.curriculum-cohort", run.curriculumCohort);
        c.put("dispatcher.sampling.temperature", run.temperature);
        return c;
    }

    /** {@code config} as a JVM's system properties, after {@code jvmOptions} (a heap, say). */
    public static List<String> jvm(Map<String, Object> config, String... jvmOptions) {
        var args = new ArrayList<>(List.of(jvmOptions));
        config.forEach((k, v) -> args.add("-D" + k + "=" + v));
        return args;
    }
}
