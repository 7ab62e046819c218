package ai.openalice.rl.trainer.service;

import ai.openalice.rl.artifacts.ArtifactStore;
import ai.openalice.rl.events.RewardScored;
import ai.openalice.rl.events.TrainingMetrics;
import ai.openalice.rl.events.Trajectory;
import ai.openalice.rl.model.checkpoint.Manifest;
import ai.openalice.rl.tracking.EpisodeTraces;
import ai.openalice.rl.tracking.MlflowClient;
import ai.openalice.rl.tracking.MlflowRun;
import ai.openalice.rl.trainer.config.TrainerConfig;
import ai.openalice.rl.trainer.repository.TrainerStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Where the trainer's run is recorded besides its Prometheus metrics ({@code trainer.tracking.*}):
 * an MLflow run — its parameters once, each step's figures, each checkpoint's manifest, resumed with
 * the id the trainer's database keeps — and each scored episode as a trace (MLflow's, or any OTLP
 * backend's). Nothing here ever holds the training loop: the recorders send from threads of their
 * own and wait out their backends (see {@link MlflowRun}, {@link EpisodeTraces}).
 */
public final class RunTracking implements AutoCloseable {
    static final String RUN_ID_KEY = "mlflow.run_id";

    private final MlflowRun run;
    private final EpisodeTraces traces;
    private final Optional<URI> mlflow;

    private RunTracking(Optional<URI> mlflow, MlflowRun run, EpisodeTraces traces) {
        this.mlflow = mlflow;
        this.run = run;
        this.traces = traces;
    }

    /** Nothing recorded (no MLflow and no OTLP endpoint set). */
    public static RunTracking none() {
        return new RunTracking(Optional.empty(), null, null);
    }

    public static RunTracking of(TrainerConfig config, TrainerStore store) {
        var t = config.tracking();
        MlflowRun run = t.mlflow().map(url -> MlflowRun.resumeOrCreate(new MlflowClient(url), t.experiment(), t.runName().orElse(null),
                Map.of("alice-rl.learner", config.learner().name().toLowerCase(), "alice-rl.mode", config.mode().name().toLowerCase()),
                new MlflowRun.RunIds() {
                    @Override
                    public Optional<String> load() {
                        return store.tracking(RUN_ID_KEY);
                    }

                    @Override
                    public void save(String runId) {
                        store.tracking(RUN_ID_KEY, runId);
                    }
                })).orElse(null);
        EpisodeTraces traces = null;
        if (t.traces()) {
            if (t.otlpEndpoint().isPresent()) {
                traces = new EpisodeTraces(t.otlpEndpoint().get(), run == null ? Map::of : mlflowHeaders(run), "alice-rl-trainer");
            } else if (run != null) {
                traces = EpisodeTraces.toMlflow(t.mlflow().get(), () -> run.run().orElse(null), "alice-rl-trainer");
            }
        }
        var tracking = new RunTracking(t.mlflow(), run, traces);
        if (run != null) {
            run.params(params(config), Map.of());
        }
        return tracking;
    }

    /** MLflow's headers for another OTLP endpoint (a collector in front of MLflow keeps the run's link); null until the run is open. */
    private static Supplier<Map<String, String>> mlflowHeaders(MlflowRun run) {
        return () -> run.run().map(r -> Map.of("x-mlflow-experiment-id", r.experimentId(), "x-mlflow-run-id", r.runId())).orElse(null);
    }

    /** The settings a reader of the run compares runs by. */
    static Map<String, String> params(TrainerConfig c) {
        var p = new LinkedHashMap<String, String>();
        p.put("mode", c.mode().name().toLowerCase());
        p.put("learner", c.learner().name().toLowerCase());
        p.put("model", c.initModel().map(Path::toString).orElse(c.learner() == TrainerConfig.LearnerKind.TINKER
                ? c.tinker().baseModel().orElse("") : "built-in GPT " + c.model().layers() + "x" + c.model().width()));
        c.initCheckpoint().ifPresent(x -> p.put("init_checkpoint", x.toString()));
        p.put("lora_rank", Integer.toString(c.lora().rank()));
        p.put("advantage", c.advantage());
        p.put("dynamic_sampling", c.dynamicSampling().name().toLowerCase());
        p.put("batch_groups", Integer.toString(c.batchGroups()));
        p.put("max_staleness", Integer.toString(c.maxStaleness()));
        p.put("lr", Double.toString(c.optim().lr()));
        p.put("schedule", c.optim().schedule().name().toLowerCase());
        p.put("warmup_steps", Integer.toString(c.optim().warmupSteps()));
        p.put("ppo_epochs", Integer.toString(c.optim().ppoEpochs()));
        p.put("eps_low", Double.toString(c.loss().epsLow()));
        p.put("eps_high", Double.toString(c.loss().epsHigh()));
        p.put("aggregation", c.loss().aggregation());
        p.put("max_length", Integer.toString(c.loss().maxLength()));
        p.put("temperature", Double.toString(c.loss().temperature()));
        p.put("seed", Long.toString(c.seed()));
        return p;
    }

    /** One step's figures at its step number. */
    void step(TrainingMetrics m, double gradNorm, double lr) {
        if (run == null) {
            return;
        }
        var v = new LinkedHashMap<String, Double>();
        v.put("loss", m.loss());
        v.put("mean_reward", m.meanReward());
        v.put("r_exec_rate", m.rExecRate());
        v.put("s_prm_mean", m.sPrmMean());
        v.put("entropy", m.entropy());
        v.put("approx_kl", m.approxKl());
        v.put("clip_fraction", m.clipFraction());
        v.put("grad_norm", gradNorm);
        v.put("learning_rate", lr);
        v.put("samples", (double) m.samples());
        v.put("tokens", (double) m.tokens());
        v.put("tokens_per_second", m.computeMs() == 0 ? null : m.tokens() * 1000.0 / m.computeMs());
        v.put("policy_version", (double) m.policyVersion());
        v.put("staleness_mean", meanStaleness(m.staleness()));
        m.dropped().forEach((reason, n) -> v.put("dropped." + reason, (double) n));
        run.log(m.step(), v);
    }

    /** The mean policy-version lag of a step's samples, from its histogram ({@code "0": n0, "1": n1, …}); null when empty. */
    static Double meanStaleness(Map<String, Long> histogram) {
        long n = 0;
        double sum = 0;
        for (var e : histogram.entrySet()) {
            try {
                sum += Long.parseLong(e.getKey()) * (double) e.getValue();
                n += e.getValue();
            } catch (NumberFormatException ignored) {
                // a bucket that is not a lag ("unknown"): not averaged
            }
        }
        return n == 0 ? null : sum / n;
    }

    /** Checkpoint {@code version}'s manifest, as the run's artifact {@code checkpoints/v<N>/manifest.json}. */
    void checkpoint(long version, Path dir) {
        if (run == null) {
            return;
        }
        try {
            run.artifact("checkpoints/v" + version + "/" + Manifest.FILE_NAME, Files.readAllBytes(dir.resolve(Manifest.FILE_NAME)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read checkpoint v" + version + "'s manifest in " + dir, e);
        }
    }

    /** A scored episode as a trace; a stored trajectory is read (and checked) on the exporting thread. */
    public void episode(RewardScored scored, Instant scoredAt, ArtifactStore artifacts) {
        if (traces == null) {
            return;
        }
        Supplier<Trajectory> trajectory = () -> scored.trajectory() == null ? new Trajectory(List.of()) : artifacts.trajectory(scored.trajectory());
        traces.submit(scored, trajectory, scoredAt);
    }

    /** For {@code GET /status}: where the run is recorded and whether its backends answer. */
    public Map<String, Object> status() {
        var out = new LinkedHashMap<String, Object>();
        mlflow.ifPresent(u -> out.put("mlflow", u.toString()));
        if (run != null) {
            run.run().ifPresent(r -> {
                out.put("experimentId", r.experimentId());
                out.put("runId", r.runId());
            });
            out.put("pending", run.pending());
            if (run.away() != null) {
                out.put("away", run.away());
            }
        }
        if (traces != null) {
            out.put("tracesExported", traces.exported());
            out.put("tracesLeftOut", traces.leftOut());
        }
        return out;
    }

    /** Sends what waits (up to {@code wait}) and marks the MLflow run KILLED: the trainer stops; a resumed one sets it RUNNING again. */
    @Override
    public void close() {
        try {
            if (traces != null) {
                traces.flush(Duration.ofSeconds(10));
                traces.close();
            }
            if (run != null) {
                run.end("KILLED");
                run.flush(Duration.ofSeconds(10));
                run.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
