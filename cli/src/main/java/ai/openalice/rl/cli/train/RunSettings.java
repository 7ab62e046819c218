package ai.openalice.rl.cli.train;

import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.events.RunProfile;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * What a run of {@code alice-rl train} is made of, as its options state it — the one definition:
 * {@link EmbeddedConfig} turns it into each service's configuration. The sandbox back end, G,
 * groups per RL step, synchronous scheduling, the oracle's failure probability when it generates
 * for RL (null: the model), the rollouts' temperature, a checkpoint to start from, the warm start's
 * batch, rate and context weight, RL's rate, filtering, reward and loss choices, and the workers.
 */
public final class RunSettings {
    @Option(names = "--sandbox", defaultValue = "local", description = "local (bubblewrap) or kubernetes (the current kubeconfig).")
    String sandbox;

    @Option(names = "--group-size", defaultValue = RunProfile.GROUP_SIZE, description = "Rollouts per task in a GRPO group (default: ${DEFAULT-VALUE}).")
    int groupSize;

    @Option(names = "--batch-groups", defaultValue = RunProfile.BATCH_GROUPS, description = "Groups per trainer step (default: ${DEFAULT-VALUE}).")
    int batchGroups;

    @Option(names = "--sync", description = "Synchronous scheduling (one batch per policy version, then wait for the checkpoint): the baseline"
            + " the asynchronous default is measured against.")
    boolean sync;

    @Option(names = "--oracle-rl", paramLabel = "P", description = "RL on the scripted oracle instead of the model, leaving out the fix with"
            + " probability P (measures the loop's throughput without a competent model; not training anything useful).")
    Double oracleRl;

    @Option(names = "--temperature", defaultValue = RunProfile.TEMPERATURE, description = "Sampling temperature of RL rollouts and probes; the trainer"
            + " compares log-probabilities under the same temperature (default: ${DEFAULT-VALUE}).")
    double temperature;

    @Option(names = "--warm-start-batch", defaultValue = "4", description = "Oracle trajectories (distinct tasks) per warm-start step (default: ${DEFAULT-VALUE}).")
    int warmStartBatch;

    @Option(names = "--warm-start-lr", defaultValue = "3e-3", description = "Learning rate of the warm start (default: ${DEFAULT-VALUE}).")
    double warmStartLr;

    @Option(names = "--warm-start-context-weight", defaultValue = "0.25", description = "How much each prompt or observation token weighs"
            + " in the warm start's loss against an action token (0: actions only; default: ${DEFAULT-VALUE}).")
    double warmStartContextWeight;

    @Option(names = "--compact-filter", negatable = true, defaultValue = RunProfile.COMPACT_FILTER, fallbackValue = "true", description = "DeepSWE's compact"
            + " filtering: episodes that ran out of turns, context or time leave their group (default: off, they keep their verdict — with"
            + " the filter on, the only failures the trainer sees are submitted ones, and RL taught the bundled model to stop submitting).")
    boolean compactFilter;

    @Option(names = "--submit-required", negatable = true, defaultValue = RunProfile.SUBMIT_REQUIRED, fallbackValue = "true", description = "Only a submitted"
            + " fix is rewarded as one: an episode that ran out of turns, context or time gets r_exec = 0 whatever its diff"
            + " (rubric.submit-required; default: on; for use without the compact filter).")
    boolean submitRequired;

    @Option(names = "--loss-aggregation", defaultValue = RunProfile.LOSS_AGGREGATION, description = "How the RL loss weighs tokens"
            + " (trainer.loss.aggregation): seq-mean-token-mean (the default: every episode pushes by its advantage, whatever its length),"
            + " seq-mean-token-sum-norm (DeepSWE: every token 1/L_max, so long failing episodes push hardest), seq-mean-token-sum, token-mean.")
    String lossAggregation;

    @Option(names = "--curriculum-cohort", defaultValue = "", paramLabel = "FIELD", description = "Tasks with the same value of this"
            + " task field share the curriculum's bench (dispatcher.curriculum-cohort; e.g. family, tiny-swe's bug family; default: none).")
    String curriculumCohort;

    @Option(names = "--lr", defaultValue = RunProfile.LR, description = "Learning rate of RL (GRPO++) steps (default: ${DEFAULT-VALUE}).")
    double lr;

    @Option(names = "--init-checkpoint", paramLabel = "DIR", description = "Start from this checkpoint folder (e.g. another run's"
            + " checkpoints/v250) when the trainer has no checkpoint of its own yet: RL at once, or first more imitation when"
            + " --warm-start-steps is given too.")
    Path initCheckpoint;

    @Option(names = "--rollout-workers", defaultValue = "4", description = "Episodes the sandbox runner plays at a time (default:"
            + " ${DEFAULT-VALUE}).")
    int rolloutWorkers;

    @Option(names = "--inference-threads", defaultValue = "1", description = "ONNX Runtime threads of the inference service (default:"
            + " ${DEFAULT-VALUE}).")
    int inferenceThreads;

    @Option(names = "--mlflow", paramLabel = "URL", description = "Record the run in this MLflow tracking server (e.g. http://127.0.0.1:5000):"
            + " parameters, metrics per step, the report and the checkpoints' manifests, and every episode as a trace; run again to go on"
            + " with the same MLflow run.")
    URI mlflow;

    @Option(names = "--mlflow-experiment", defaultValue = "alice-rl", paramLabel = "NAME", description = "The MLflow experiment of --mlflow"
            + " (default: ${DEFAULT-VALUE}).")
    String mlflowExperiment;

    boolean localSandbox() {
        return sandbox.equals("local");
    }

    /** What is wrong with these options, named as the user wrote them; null when nothing is. */
    String problem() {
        if (!sandbox.equals("local") && !sandbox.equals("kubernetes")) {
            return "--sandbox must be local or kubernetes, got '" + sandbox + "'";
        }
        if (oracleRl != null && !(oracleRl >= 0 && oracleRl <= 1)) {
            return "--oracle-rl is a probability in [0, 1], got " + oracleRl;
        }
        if (initCheckpoint != null && !Files.isRegularFile(initCheckpoint.resolve("manifest.json"))) {
            return "--init-checkpoint " + initCheckpoint + " is not a checkpoint folder (no manifest.json in it)";
        }
        if (warmStartBatch < 1 || !(warmStartLr > 0) || !(lr > 0) || !(warmStartContextWeight >= 0)) {
            return "--warm-start-batch must be >= 1, --warm-start-lr and --lr > 0, --warm-start-context-weight >= 0, got " + warmStartBatch
                    + ", " + warmStartLr + ", " + lr + " and " + warmStartContextWeight;
        }
        if (rolloutWorkers < 1 || inferenceThreads < 1) {
            return "--rollout-workers and --inference-threads must be >= 1, got " + rolloutWorkers + " and " + inferenceThreads;
        }
        if (!(temperature > 0 && temperature <= 2)) {
            return "--temperature must be in (0, 2], got " + temperature;
        }
        if (mlflow != null && (mlflow.getScheme() == null || !mlflow.getScheme().matches("https?") || mlflow.getHost() == null)) {
            return "--mlflow is an MLflow server's http(s) URL (e.g. http://127.0.0.1:5000), got '" + mlflow + "'";
        }
        try {
            Aggregation.byName(lossAggregation);
        } catch (IllegalArgumentException e) {
            return "--loss-aggregation: " + e.getMessage();
        }
        return null;
    }
}
