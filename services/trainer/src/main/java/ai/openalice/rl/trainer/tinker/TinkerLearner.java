package ai.openalice.rl.trainer.tinker;

import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.checkpoint.CheckpointException;
import ai.openalice.rl.model.checkpoint.Manifest;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.learner.Learner;
import ai.openalice.rl.model.learner.LrSchedule;
import ai.openalice.rl.model.learner.PolicyLearner;
import ai.openalice.rl.model.learner.SequenceBatch;
import ai.openalice.rl.tinker.AdamParams;
import ai.openalice.rl.tinker.Datum;
import ai.openalice.rl.tinker.ForwardBackwardResult;
import ai.openalice.rl.tinker.LossFn;
import ai.openalice.rl.tinker.TinkerClient;
import ai.openalice.rl.tinker.TinkerModelLostException;
import ai.openalice.rl.tinker.TinkerRejectedException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * The learner on an existing distributed engine: forward, backward and the optimizer step of each
 * batch go to a Tinker engine (one LoRA model there); the batch, the advantages and their
 * normalisation stay ours ({@link TinkerBatch}). A GRPO++ step is a forward (the learner's own
 * log-probabilities, π_old, when {@code tisFromForward}), one ppo forward_backward and one
 * optim_step; a supervised step one cross_entropy forward_backward with the built-in learner's
 * normalisation folded into the weights, and one optim_step.
 *
 * <p>Sequence ids come from the optimizer step count (four per step), so a step sent again after a
 * crash is answered by the engine with the futures it already has instead of being applied twice.
 * The engine's Adam has no gradient-norm clipping: {@code clipNorm} of the built-in learner has no
 * counterpart here.
 */
public final class TinkerLearner implements PolicyLearner {
    private static final Logger LOG = Logger.getLogger(TinkerLearner.class);
    /** The optimizer's and loss's settings, and the model's context. */
    public record Settings(PolicyLossConfig loss, LrSchedule lr, double beta1, double beta2, double eps, double weightDecay, int contextLength,
            boolean tisFromForward, double gradClipNorm) {
        /** Without gradient clipping. */
        public Settings(PolicyLossConfig loss, LrSchedule lr, double beta1, double beta2, double eps, double weightDecay, int contextLength,
                boolean tisFromForward) {
            this(loss, lr, beta1, beta2, eps, weightDecay, contextLength, tisFromForward, 0);
        }
    }

    /**
     * The model on the engine and its base here: {@code baseModel} as the engine names it (a
     * HuggingFace id or a path on its machine), {@code baseDir} the same model's folder on this one
     * (its config, tokenizer and, for {@code exportOnnx}, its weights, which a checkpoint's ONNX
     * graph merges the adapter into), the LoRA {@code rank} and the seed of a new adapter.
     */
    public record Model(String baseModel, Path baseDir, int rank, long seed, boolean exportOnnx) {
        public Model {
            if (rank < 1) {
                throw new IllegalArgumentException("the Tinker learner trains a LoRA adapter: trainer.lora.rank must be at least 1, got " + rank);
            }
        }
    }

    /**
     * The engine lost the model and with it steps no saved state holds (taken since the last
     * checkpoint): the trainer must go back to its last checkpoint, whose ledger has not consumed
     * those steps' samples, and train them again.
     */
    public static final class StepsLostException extends RuntimeException {
        StepsLostException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final TinkerClient client;
    private final Model model;
    private final Settings settings;
    private String modelId;
    private long step;
    /**
     * The sequence ids of the next step: 4 × the step count on a new model (load_weights takes the
     * first, forward, forward_backward and optim_step the next three), moved past each step tried —
     * a batch the engine refused leaves its ids used, and the engine refuses (409) an id sent again
     * with another body.
     */
    private long nextSeq;
    /** The last state saved (by a checkpoint, or resumed from); null before the first. */
    private TinkerState saved;
    private HfModel base;

    /** A learner of {@code modelId} on the engine {@code client} speaks to, whose optimizer has taken {@code step} steps. */
    TinkerLearner(TinkerClient client, String modelId, Model model, Settings settings, long step) {
        this.client = client;
        this.modelId = modelId;
        this.model = model;
        this.settings = settings;
        this.step = step;
        this.nextSeq = 4 * step;
    }

    /** A new LoRA adapter of {@code model} on the engine (in a new session of {@code client}). */
    public static TinkerLearner create(TinkerClient client, Model model, Settings settings) {
        return new TinkerLearner(client, attach(client, model, null, 0), model, settings, 0);
    }

    /**
     * The learner a checkpoint of it saved: a new model on the engine loads the saved weights and
     * Adam's moments ({@code load_weights}), and the step count goes on from the saved one. A state
     * the engine no longer has is an error naming it.
     */
    public static TinkerLearner resume(TinkerClient client, TinkerState saved, Model model, Settings settings) {
        if (!saved.baseModel().equals(model.baseModel()) || saved.rank() != model.rank()) {
            throw new IllegalArgumentException("the checkpoint's engine state is a rank-%d adapter of %s, the trainer is set for rank %d of %s"
                    .formatted(saved.rank(), saved.baseModel(), model.rank(), model.baseModel()));
        }
        var learner = new TinkerLearner(client, attach(client, model, saved, saved.optimizerStep()), model, settings, saved.optimizerStep());
        learner.saved = saved;
        return learner;
    }

    /**
     * Runs a step; when the engine has lost the model (it restarted) and no step was taken since
     * the last saved state, makes the model again from that state — a new model, so nothing the
     * old one half-did counts — and runs the step once more. Steps since the save cannot be made
     * again here: {@link StepsLostException}.
     */
    private Learner.StepStats attached(Supplier<Learner.StepStats> stepOnce) {
        try {
            return stepOnce.get();
        } catch (TinkerModelLostException e) {
            if (step != savedStep()) {
                throw stepsLost("", e);
            }
            String lost = modelId;
            modelId = attach(client, model, saved, step);
            nextSeq = 4 * step;
            LOG.warnf("the Tinker engine lost model %s (%s): made again as %s from %s", lost, e.getMessage(), modelId,
                    saved == null ? "a new adapter (no step taken yet)" : saved.state());
            return stepOnce.get();
        }
    }

    /**
     * A model of {@code model} on the engine, in a new session of {@code client}: a new adapter, with
     * the {@code saved} state and Adam's moments loaded when there is one ({@code step}: the
     * optimizer step it is loaded at, whose sequence ids it takes). Returns the engine's model id.
     */
    private static String attach(TinkerClient client, Model model, TinkerState saved, long step) {
        client.createSession(List.of("alice-rl-trainer"));
        String id = client.createLoraModel(model.baseModel(), model.rank(), model.seed());
        if (saved != null) {
            client.loadWeights(id, saved.state(), true, Math.toIntExact(4 * step));
        }
        return id;
    }

    private long savedStep() {
        return saved == null ? 0 : saved.optimizerStep();
    }

    /** The engine lost the model {@code when}, with the steps since the last saved state. */
    private StepsLostException stepsLost(String when, TinkerModelLostException e) {
        return new StepsLostException("the Tinker engine lost model %s%s with %d step(s) taken since its last saved state (step %d): %s"
                .formatted(modelId, when, step - savedStep(), savedStep(), e.getMessage()), e);
    }

    /**
     * Frees this learner's model on the engine, when the trainer sets it aside (it goes back to its
     * last checkpoint in a new model); a model the engine no longer has is nothing to free. A trainer
     * that is killed cannot: SkyRL unloads the models of a session silent for 300 s itself.
     */
    public void unload() {
        try {
            client.unloadModel(modelId);
            LOG.infof("unloaded model %s from the Tinker engine", modelId);
        } catch (TinkerRejectedException gone) {
            LOG.infof("model %s is not on the Tinker engine any more (%s)", modelId, gone.getMessage());
        }
    }

    /** The engine's id of the model trained. */
    public String modelId() {
        return modelId;
    }

    /** Optimizer steps taken. */
    public long step() {
        return step;
    }

    @Override
    public Learner.StepStats rl(SequenceBatch b) {
        return attached(() -> rlOnce(b));
    }

    private Learner.StepStats rlOnce(SequenceBatch b) {
        int seq = seqBase();
        float[] old = settings.tisFromForward() ? logprobs(b, seq + 1) : null;
        List<Datum> rows = TinkerBatch.rows(b, old, settings.loss().tisCap());
        ForwardBackwardResult r = client.forwardBackward(modelId, seq + 2, rows, LossFn.PPO, TinkerBatch.clip(settings.loss()));
        double lo = 1 - settings.loss().epsLow();
        double hi = 1 + settings.loss().epsHigh();
        long counted = 0;
        long clipped = 0;
        double kl = 0;
        double entropy = 0;
        for (int row = 0; row < rows.size(); row++) {
            Datum d = rows.get(row);
            float[] lp = r.logprobs(row);
            for (int i = 0; i < lp.length; i++) {
                if (d.weights()[i] == 0) {
                    continue;
                }
                counted++;
                double ratio = Math.exp(lp[i] - d.samplerLogprobs()[i]);
                clipped += ratio < lo || ratio > hi ? 1 : 0;
                double toRollout = b.rolloutLogp()[row * b.width() + i] - lp[i];
                kl += Math.exp(toRollout) - 1 - toRollout;
                entropy -= lp[i];
            }
        }
        return stepped(r.loss(), counted == 0 ? 0 : (double) clipped / counted, counted == 0 ? 0 : kl / counted,
                counted == 0 ? 0 : entropy / counted, seq + 3, b.completionTokens());
    }

    @Override
    public Learner.StepStats sft(SequenceBatch b, double contextWeight) {
        return attached(() -> sftOnce(b, contextWeight));
    }

    private Learner.StepStats sftOnce(SequenceBatch b, double contextWeight) {
        int seq = seqBase();
        double tokens = 0;
        for (int i = 0; i < b.mask().length; i++) {
            tokens += b.mask()[i] + contextWeight * b.contextMask()[i];
        }
        double norm = 1 / Math.max(1, tokens);
        List<Datum> rows = new ArrayList<>();
        for (Datum d : TinkerBatch.rows(b)) {
            int row = rows.size();
            float[] w = new float[d.weights().length];
            for (int i = 0; i < w.length; i++) {
                int at = row * b.width() + i;
                w[i] = (float) ((b.mask()[at] + contextWeight * b.contextMask()[at]) * norm);
            }
            rows.add(Datum.supervised(d.inputTokens(), d.targetTokens(), w));
        }
        ForwardBackwardResult r = client.forwardBackward(modelId, seq + 2, rows, LossFn.CROSS_ENTROPY, Map.of());
        return stepped(r.loss(), 0, 0, 0, seq + 3, b.completionTokens());
    }

    private Learner.StepStats stepped(double loss, double clipFraction, double kl, double entropy, int seq, long tokens) {
        double lr = settings.lr().at(step);
        Map<String, Double> metrics;
        try {
            metrics = client.optimStep(modelId, seq, new AdamParams(lr, settings.beta1(), settings.beta2(), settings.eps(), settings.weightDecay(),
                    settings.gradClipNorm()));
        } catch (TinkerModelLostException e) {
            throw e; // the model is gone, and its gradients with it: made again from the saved state (attached)
        } catch (TinkerRejectedException e) {
            // the batch's gradients are on the model, unapplied: a next forward_backward would add to them, so the model is
            // not trusted any more — back to the last saved state, as when the engine loses it
            throw new StepsLostException("the Tinker engine refused optim_step with the batch's gradients taken (%s): model %s is set aside,"
                    .formatted(e.getMessage(), modelId) + " with %d step(s) taken since its last saved state (step %d)".formatted(step - savedStep(),
                    savedStep()), e);
        }
        step++;
        return new Learner.StepStats(loss, clipFraction, kl, entropy, metrics.getOrDefault("skyrl.ai/grad_norm", Double.NaN), lr, tokens);
    }

    /** The learner's log-probabilities of every position, in the batch's layout (π_old of the step). */
    private float[] logprobs(SequenceBatch b, int seq) {
        ForwardBackwardResult f = client.forward(modelId, seq, TinkerBatch.rows(b), LossFn.CROSS_ENTROPY, Map.of());
        float[] old = new float[b.rows() * b.width()];
        for (int r = 0; r < b.rows(); r++) {
            float[] lp = f.logprobs(r);
            System.arraycopy(lp, 0, old, r * b.width(), lp.length);
        }
        return old;
    }

    /** The first of the four sequence ids a step takes. */
    private int seqBase() {
        int seq = Math.toIntExact(nextSeq);
        nextSeq += 4;
        return seq;
    }

    @Override
    public int contextLength() {
        return settings.contextLength();
    }

    /**
     * Saves the engine's state ({@code save_weights}: to resume from) and its sampler weights, fetches
     * those as a PEFT adapter and writes a HuggingFace checkpoint of it over the local base: the
     * adapter, the base's config and tokenizer, {@value TinkerState#FILE} naming both saves and, with
     * {@code exportOnnx}, the ONNX graph of the merged weights for the inference service.
     */
    @Override
    public Manifest checkpoint(Path dir, String tokenizer, long policyVersion, long step) {
        String name = "v%d-step%d".formatted(policyVersion, this.step);
        String state;
        String sampler;
        try {
            state = client.saveWeights(modelId, name);
            sampler = client.saveWeightsForSampler(modelId, name);
        } catch (TinkerModelLostException e) {
            throw stepsLost(" before checkpoint v" + policyVersion + " could be saved", e);
        }
        Path fetched = dir.resolveSibling(dir.getFileName() + ".tmp-" + System.nanoTime());
        try {
            client.downloadSamplerWeights(sampler, fetched);
            HfModel b = base();
            LoraAdapter adapter = LoraAdapter.load(fetched, b.config());
            Map<String, float[]> merged = model.exportOnnx() ? adapter.merge(b.floats()) : Map.of();
            var now = new TinkerState(TinkerClient.PROTOCOL_VERSION, model.baseModel(), model.rank(), state, sampler, this.step);
            String first = b.config().tensors().keySet().iterator().next();
            Manifest m = Checkpoint.saveHf(dir, b.config(), model.baseDir(), merged, adapter, b.weights().entry(first).dtype(), policyVersion, step,
                    Map.of(), 0, model.exportOnnx(), Map.of(TinkerState.FILE, now.bytes()));
            saved = now;
            return m;
        } catch (IOException e) {
            throw new CheckpointException(CheckpointException.Reason.IO, "checkpoint v" + policyVersion + " of the engine's " + modelId + ": "
                    + e.getMessage(), e);
        } finally {
            try {
                Checkpoint.deleteTree(fetched);
            } catch (IOException e) {
                // a leftover .tmp- folder is swept at the next start
            }
        }
    }

    private HfModel base() throws IOException {
        if (base == null) {
            base = HfModel.load(model.baseDir());
        }
        return base;
    }

    @Override
    public void close() {
        client.close();
    }
}
