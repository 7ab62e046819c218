package ai.openalice.rl.trainer.config;

import ai.openalice.rl.events.RunProfile;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The trainer's settings ({@code trainer.*}). */
@ConfigMapping(prefix = "trainer")
public interface TrainerConfig {

    /** {@code rl} (GRPO++ on scored groups) or {@code sft} (supervised, on the solved trajectories). */
    @WithDefault("rl")
    Mode mode();

    /** {@code trainer.mode}: a value other than these stops start-up, naming the allowed ones. */
    enum Mode { RL, SFT }

    /** {@code trainer.dynamic-sampling}. */
    enum DynamicSampling { NONE, REWARD, OUTCOME }

    /** {@code trainer.optim.schedule}. */
    enum Schedule { CONSTANT, COSINE }

    /**
     * In {@code sft} mode, how much each prompt or observation token weighs in the loss against a
     * completion token (0: completions only). See {@code Learner.sft(batch, weight)}.
     */
    @WithDefault("0")
    double sftContextWeight();

    /** In {@code sft} mode, whether the calls that failed (unparsable, refused by the tool) are imitated too; by default only the recovery is. */
    @WithDefault("false")
    boolean sftImitateFailedCalls();

    /**
     * Which groups teach nothing (dynamic sampling): {@code reward} drops groups whose rewards are all
     * equal; {@code outcome} also drops groups where every member solved or none did (DAPO's
     * accuracy filter), so the rubric's share only ranks members of a mixed group; {@code none}
     * keeps every group of two or more valid members (plain GRPO: a group of equal rewards has zero
     * advantage and only costs compute).
     */
    @WithDefault(RunProfile.DYNAMIC_SAMPLING)
    DynamicSampling dynamicSampling();

    /** Where the run is recorded besides its metrics: MLflow, and the episodes' traces. */
    Tracking tracking();

    interface Tracking {
        /**
         * An MLflow tracking server ({@code http://mlflow:5000}): a run per training run (parameters,
         * metrics per step, the checkpoints' manifests), resumed when the trainer resumes, and each
         * scored episode as a trace of the run. Empty: none.
         */
        Optional<URI> mlflow();

        /** The MLflow experiment the run is made in. */
        @WithDefault("alice-rl")
        String experiment();

        /** The MLflow run's name (empty: MLflow names it). */
        Optional<String> runName();

        /**
         * Any OpenTelemetry backend's OTLP/HTTP traces endpoint ({@code http://collector:4318/v1/traces})
         * for the episodes' traces; empty: MLflow's own ({@code <mlflow>/v1/traces}) when MLflow is set, else none.
         */
        Optional<URI> otlpEndpoint();

        /** Whether scored episodes are exported as traces (where there is an endpoint). */
        @WithDefault("true")
        boolean traces();
    }

    /** Groups per training step. */
    @WithDefault(RunProfile.BATCH_GROUPS)
    int batchGroups();

    /** A group is trained once all its members are scored, or this long after its first member arrived (with what it has). */
    @WithDefault(RunProfile.GROUP_DEADLINE)
    Duration groupDeadline();

    /** Advantages: an episode-level group estimator (rl-core: loo, grpo, drgrpo) or {@code gigpo} (per-turn, anchor-state groups). */
    @WithDefault("loo")
    String advantage();

    /** Groups sampled more than this many policy versions behind are dropped. */
    @WithDefault(RunProfile.MAX_STALENESS)
    int maxStaleness();

    /**
     * The least free space, in MiB, {@code artifact-dir} must have for the trainer to take its next
     * step: under it the loop waits for room (on the status as {@code waiting}) rather than compute a
     * step whose checkpoint cannot be written. A checkpoint that meets a full volume waits for room
     * too. 0: never wait.
     */
    @WithDefault("1024")
    long minFreeDiskMib();

    /** Publish a checkpoint every N steps (the consumed-sample ledger is committed with it). */
    @WithDefault("1")
    int checkpointEvery();

    /**
     * Checkpoint folders kept besides milestones: the newest N (inference and evaluation runs load
     * recent versions; a loaded version stays in memory when its folder goes). At least 1.
     */
    @WithDefault("8")
    int keepCheckpoints();

    /** Versions that are multiples of this are kept for good (milestones for later evaluation); 0 keeps none. */
    @WithDefault("100")
    int keepCheckpointEvery();

    /**
     * Retention of trajectories in the database: a trained sample keeps its trajectory for this many
     * committed steps (for inspection and the report), then only its ledger row (rollout, group,
     * step, reward). At least 0.
     */
    @WithDefault("20")
    int keepTrajectorySteps();

    /** How long the trajectories of a group dropped from training (all rewards equal, stale, evaluation…) are kept. */
    @WithDefault("PT1H")
    Duration keepDroppedTrajectories();

    /** How often trajectories past retention are dropped (in batches of 1,000 rows). */
    @WithDefault("PT1M")
    Duration pruneEvery();

    /** The artifact store: checkpoints go to {@code <dir>/v<N>}. */
    @WithDefault("${user.home}/.alice-rl/artifacts/checkpoints")
    Path artifactDir();

    /** Start from this checkpoint when the registry is empty (e.g. a supervised warm-start); else from random weights. */
    Optional<Path> initCheckpoint();

    /**
     * Also take {@code init-checkpoint}'s optimizer state and step, when it has them: for more of the
     * same training (another leg of imitation). Off: fresh Adam moments and warm-up, as RL after
     * imitation wants.
     */
    @WithDefault("false")
    boolean initOptimizer();

    /**
     * A HuggingFace model folder to train (Llama, Mistral, Qwen2, Qwen3; config.json, safetensors,
     * tokenizer.json) when the registry is empty and no init-checkpoint is set: fully, or through a
     * LoRA adapter ({@code trainer.init-adapter}, or a new one with {@code trainer.lora.rank} > 0).
     * Also the base an adapter checkpoint is resumed over.
     */
    Optional<Path> initModel();

    /** A PEFT LoRA adapter folder to go on training over {@code trainer.init-model}. */
    Optional<Path> initAdapter();

    /**
     * Whether a HuggingFace model's checkpoints carry {@code model.onnx}, which the inference
     * service needs to serve them in process. Off when an external engine (SGLang, vLLM) serves:
     * it reads the safetensors or the adapter, and the export is the largest file of a checkpoint
     * and the slowest part of writing it. The built-in model always exports.
     */
    @WithDefault("true")
    boolean exportOnnx();

    Lora lora();

    /**
     * Where forward, backward and the optimizer step run: {@code djl} in this process (the built-in
     * model, or a HuggingFace model that fits one device in float32), or {@code tinker} — an engine
     * speaking the Tinker API ({@code trainer.tinker.*}) trains a LoRA adapter of rank
     * {@code trainer.lora.rank} over {@code trainer.init-model}.
     */
    @WithDefault("djl")
    LearnerKind learner();

    /** {@code trainer.learner}. */
    enum LearnerKind { DJL, TINKER }

    Tinker tinker();

    /** The Tinker engine of {@code trainer.learner=tinker}. */
    interface Tinker {
        /** The engine's base URL (e.g. http://skyrl-tinker:8000). */
        Optional<URI> url();

        /** A file holding the API key the engine wants (sent as X-API-Key); none: the engine takes any. */
        Optional<Path> apiKeyFile();

        /** The base model as the engine loads it (a HuggingFace id, or a path on the engine's machine); default: init-model's path. */
        Optional<String> baseModel();

        /**
         * Whether the engine applies the Tinker API's {@code grad_clip_norm}, which carries
         * {@code trainer.optim.clip-norm} there. SkyRL's server ignores it: with false, a clip-norm
         * above 0 is refused at start rather than silently not applied.
         */
        @WithDefault("false")
        boolean engineClipsGradients();
    }

    /** A new LoRA adapter for {@code trainer.init-model}. */
    interface Lora {
        /** Rank r; 0 trains every weight (full fine-tuning). */
        @WithDefault("0")
        int rank();

        /** lora_alpha: the update is scaled by alpha / r (alpha / √r with rslora). */
        @WithDefault("16")
        double alpha();

        /** Module names to adapt (PEFT's target_modules). */
        @WithDefault("q_proj,v_proj")
        List<String> targets();

        @WithDefault("false")
        boolean rslora();
    }

    /** Seed of the initial weights. */
    @WithDefault("1")
    long seed();

    /** DJL/PyTorch intra-op threads. */
    @WithDefault("1")
    int threads();

    /** How often the loop looks for ready groups while waiting. */
    @WithDefault("PT0.5S")
    Duration poll();

    /** Whether the training loop runs (off: intake only, e.g. for maintenance). */
    @WithDefault("true")
    boolean enabled();

    Model model();

    Optim optim();

    Loss loss();

    /** The built-in model for a fresh start (a checkpoint brings its own). */
    interface Model {
        @WithDefault(RunProfile.CONTEXT_LENGTH)
        int contextLength();

        @WithDefault(RunProfile.MODEL_LAYERS)
        int layers();

        @WithDefault(RunProfile.MODEL_HEADS)
        int heads();

        @WithDefault(RunProfile.MODEL_WIDTH)
        int width();
    }

    /** AdamW and the step's cut. */
    interface Optim {
        @WithDefault(RunProfile.LR)
        double lr();

        @WithDefault("0")
        int warmupSteps();

        /** {@code constant} or {@code cosine}. */
        @WithDefault("constant")
        Schedule schedule();

        /** Optimizer steps of the cosine decay. */
        @WithDefault("10000")
        long totalSteps();

        @WithDefault("0.1")
        double minLrRatio();

        @WithDefault("0.01")
        double weightDecay();

        @WithDefault("1.0")
        double clipNorm();

        @WithDefault("1")
        int ppoEpochs();

        @WithDefault("1")
        int miniBatches();

        /** Rows per forward/backward pass (gradient accumulation beyond). */
        @WithDefault(RunProfile.MICRO_BATCH)
        int microBatch();
    }

    /** The GRPO++ loss (rl-core's reference). */
    interface Loss {
        @WithDefault("0.2")
        double epsLow();

        @WithDefault("0.28")
        double epsHigh();

        /** Truncated importance sampling cap C. */
        @WithDefault("2.0")
        double tisCap();

        /**
         * How per-token losses become one scalar (rl-core's {@code Aggregation}):
         * {@code seq-mean-token-sum-norm} (Dr. GRPO, DeepSWE: every token weighs 1/L_max, so a long
         * episode pushes as many times harder as it has more tokens), {@code seq-mean-token-mean}
         * (every episode's push is its advantage, whatever its length), {@code seq-mean-token-sum},
         * {@code token-mean}.
         */
        @WithDefault(RunProfile.LOSS_AGGREGATION)
        String aggregation();

        /** L_max of seq-mean-token-sum-norm; 0 = the model's context length. */
        @WithDefault("0")
        int maxLength();

        /**
         * Compact filtering (DeepSWE): episodes that hit max context, max steps or the timeout leave
         * the group. Off, they keep their verdict: the final diff of a truncated episode is verified
         * too, and a policy that fixes the bug but never learnt to submit is then still rewarded.
         */
        @WithDefault(RunProfile.COMPACT_FILTER)
        boolean compactFilter();

        /** The sampling temperature of the rollouts (log-probs are compared under it). */
        @WithDefault(RunProfile.TEMPERATURE)
        double temperature();
    }
}
