package ai.openalice.rl.model.learner;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.Shape;
import ai.djl.pytorch.jni.JniUtils;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.model.checkpoint.Manifest;
import ai.openalice.rl.model.djl.CausalLm;
import ai.openalice.rl.model.djl.LeanPass;
import ai.openalice.rl.model.djl.Scalars;
import ai.openalice.rl.model.train.AdamW;
import ai.openalice.rl.model.train.PolicyGradientLoss;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * The learner: a causal LM ({@link CausalLm}: the built-in GPT, or a HuggingFace family, full or LoRA) and AdamW on DJL. One call is one training step on one batch —
 * π_old recomputed under the current weights (no gradient; with one epoch and one mini-batch it is
 * the current policy, read off the same forward pass), then {@code ppoEpochs} passes over
 * {@code miniBatches} optimizer steps, each accumulating the gradient of micro-batches of
 * {@code microBatch} rows (the aggregation's coefficients were computed over the whole batch,
 * rescaled per mini-batch, so accumulation gives the mini-batch's exact gradient), each micro-batch's
 * pass a {@link LeanPass} (one block of one layer's graph at a time, the rest recomputed). Every NDArray
 * of a micro-batch lives in a scope closed after it (an {@code NDScope}: the model's ops attach
 * their results to the weights' manager otherwise): memory stays flat over weeks.
 */
public final class Learner<M extends CausalLm> implements PolicyLearner {
    private final M gpt;
    private final AdamW optimizer;
    private final Settings settings;
    private final LeanPass lean;

    /** How a step is cut and scheduled, and the loss. */
    public record Settings(PolicyLossConfig loss, LrSchedule lr, int ppoEpochs, int miniBatches, int microBatch, float temperature) {
        public Settings {
            if (ppoEpochs < 1 || miniBatches < 1 || microBatch < 1 || !(temperature > 0)) {
                throw new IllegalArgumentException("ppo-epochs, mini-batches and micro-batch must be >= 1 and the temperature > 0");
            }
        }
    }

    /** What one step did: loss, clipped fraction, KL to the rollout policy (k3), entropy estimate, gradient norm, rate, tokens. */
    public record StepStats(double loss, double clipFraction, double approxKl, double entropy, double gradNorm, double lr, long tokens) {}

    public Learner(M gpt, AdamW optimizer, Settings settings) {
        this.gpt = gpt;
        this.optimizer = optimizer;
        this.settings = settings;
        this.lean = new LeanPass(gpt);
    }

    public M model() {
        return gpt;
    }

    public AdamW optimizer() {
        return optimizer;
    }

    @Override
    public int contextLength() {
        return gpt.contextLength();
    }

    @Override
    public Manifest checkpoint(Path dir, String tokenizer, long policyVersion, long step) {
        return gpt.save(dir, tokenizer, policyVersion, step, optimizer.export(), optimizer.step());
    }

    /** A GRPO++ step: clip-high PPO on the advantages, truncated importance sampling against the rollout log-probs. */
    @Override
    public StepStats rl(SequenceBatch b) {
        return step(b, false, 0);
    }

    /** A supervised step: the negative log-likelihood of the completion tokens (warm-start on successful or oracle trajectories). */
    public StepStats sft(SequenceBatch b) {
        return sft(b, 0);
    }

    /**
     * A supervised step that also learns to predict the prompt and observation tokens, each
     * weighing {@code contextWeight} of a completion token: −(Σ_completion log p + w·Σ_context log p)
     * ÷ (completion tokens + w·context tokens). For a model trained from scratch this is the
     * language modelling it never had (the code it reads, the copies it must make); the reported
     * loss stays the completion tokens' NLL.
     */
    @Override
    public StepStats sft(SequenceBatch b, double contextWeight) {
        if (!(contextWeight >= 0)) {
            throw new IllegalArgumentException("context weight must be >= 0, got " + contextWeight);
        }
        return step(b, true, (float) contextWeight);
    }

    private StepStats step(SequenceBatch b, boolean sft, float contextWeight) {
        if (b.rows() == 0 || b.completionTokens() == 0) {
            throw new IllegalArgumentException("an empty batch");
        }
        try {
            return stepOnce(b, sft, contextWeight);
        } catch (RuntimeException e) {
            // a step that failed part way has left its earlier micro-batches' gradients on the weights: the next step must not add to them
            for (NDArray p : gpt.parameters().values()) {
                if (p.hasGradient()) {
                    NDArray g = p.getGradient();
                    g.set(new float[Math.toIntExact(g.size())]);
                }
            }
            throw e;
        }
    }

    private StepStats stepOnce(SequenceBatch b, boolean sft, float contextWeight) {
        // PyTorch's grad mode is per thread and on in a new one; a collector restores it on close, and the optimizer's in-place
        // updates of the weights need it off
        JniUtils.setGradMode(false);
        // one epoch, one mini-batch: π_old is the current policy itself, so its log-probs come from the same forward pass
        // (detached) instead of a second one
        boolean onPolicy = settings.ppoEpochs() == 1 && settings.miniBatches() == 1;
        float[] old = sft || onPolicy ? null : logprobs(b);
        int perMini = (b.rows() + settings.miniBatches() - 1) / settings.miniBatches();
        double lossSum = 0, klSum = 0, entSum = 0, gradNorm = 0, lr = 0;
        long clipped = 0, counted = 0;
        for (int epoch = 0; epoch < settings.ppoEpochs(); epoch++) {
            for (int m0 = 0; m0 < b.rows(); m0 += perMini) {
                int m1 = Math.min(b.rows(), m0 + perMini);
                float scale = (float) b.rows() / (m1 - m0);
                float miniTokens = 0;
                float miniContext = 0;
                for (int i = m0 * b.width(); i < m1 * b.width(); i++) {
                    miniTokens += b.mask()[i];
                    miniContext += b.contextMask()[i];
                }
                float w = sft ? contextWeight : 0;
                for (int r0 = m0; r0 < m1; r0 += settings.microBatch()) {
                    int r1 = Math.min(m1, r0 + settings.microBatch());
                    try (NDScope scope = new NDScope(); NDManager sub = gpt.manager().newSubManager()) {
                        scope.suppressNotUsedWarning();
                        var shape = new Shape(r1 - r0, b.width());
                        int from = r0 * b.width();
                        int to = r1 * b.width();
                        NDArray mask = sub.create(Arrays.copyOfRange(b.mask(), from, to), shape);
                        float[] oldPart = old == null ? null : Arrays.copyOfRange(old, from, to);
                        var sl = new Slice(b, from, to, shape, sub);
                        float norm = Math.max(1f, miniTokens + w * miniContext);
                        var pass = lean.backward(sl.longs(b.inputs()), sl.longs(b.targets()), settings.temperature(),
                                logp -> sft ? nll(sl, logp, mask, w, norm) : policyLoss(sl, logp, oldPart, scale));
                        float[] logpNow = pass.logprobs();
                        if (sft && w > 0) { // report the completion tokens' NLL, as without the context term
                            double nll = 0;
                            for (int i = 0; i < logpNow.length; i++) {
                                nll -= logpNow[i] * b.mask()[from + i];
                            }
                            lossSum += nll / Math.max(1f, miniTokens) / settings.miniBatches() / settings.ppoEpochs();
                        } else {
                            lossSum += pass.loss() / settings.miniBatches() / settings.ppoEpochs();
                        }
                        for (int i = 0; i < logpNow.length; i++) {
                            if (b.mask()[from + i] == 0) {
                                continue;
                            }
                            counted++;
                            entSum -= logpNow[i];
                            double rl = b.rolloutLogp()[from + i] - logpNow[i];
                            klSum += Math.exp(rl) - 1 - rl;
                            if (oldPart != null) {
                                double ratio = Math.exp(logpNow[i] - oldPart[i]);
                                if (ratio < 1 - settings.loss().epsLow() || ratio > 1 + settings.loss().epsHigh()) {
                                    clipped++;
                                }
                            }
                        }
                    }
                }
                lr = settings.lr().at(optimizer.step());
                gradNorm = optimizer.update(gpt.parameters(), lr);
            }
        }
        return new StepStats(lossSum, sft ? 0 : (double) clipped / counted, klSum / counted, entSum / counted, gradNorm, lr, b.completionTokens());
    }

    /** Rows from..to of the batch's arrays, as NDArrays of one micro-batch's shape. */
    private record Slice(SequenceBatch b, int from, int to, Shape shape, NDManager sub) {
        NDArray floats(float[] all) {
            return sub.create(Arrays.copyOfRange(all, from, to), shape);
        }

        NDArray longs(long[] all) {
            return sub.create(Arrays.copyOfRange(all, from, to), shape);
        }
    }

    /** The completions' NLL, with the context tokens at weight w when w > 0, over the mini-batch's norm. */
    private static NDArray nll(Slice sl, NDArray logp, NDArray mask, float w, float norm) {
        NDArray weights = w > 0 ? mask.add(sl.floats(sl.b().contextMask()).mul(w)) : mask;
        return Scalars.div(logp.mul(weights).sum().neg(), norm);
    }

    /** GRPO++'s loss over the micro-batch; π_old is the pass's own log-probs (detached) unless given. */
    private NDArray policyLoss(Slice sl, NDArray logp, float[] oldPart, float scale) {
        NDArray coef = Scalars.mul(sl.floats(sl.b().coef()), scale);
        NDArray oldLogp = oldPart == null ? logp.stopGradient() : sl.sub().create(oldPart, sl.shape());
        return PolicyGradientLoss.loss(logp, oldLogp, sl.floats(sl.b().rolloutLogp()), sl.floats(sl.b().advantages()), coef, settings.loss());
    }

    /** log π_θ of every target under the current weights, without a graph: π_old of the step. */
    public float[] logprobs(SequenceBatch b) {
        float[] out = new float[b.rows() * b.width()];
        for (int r0 = 0; r0 < b.rows(); r0 += settings.microBatch()) {
            int r1 = Math.min(b.rows(), r0 + settings.microBatch());
            try (NDScope scope = new NDScope(); NDManager sub = gpt.manager().newSubManager()) {
                scope.suppressNotUsedWarning();
                var shape = new Shape(r1 - r0, b.width());
                int from = r0 * b.width();
                int to = r1 * b.width();
                float[] part = lean.logprobs(sub.create(Arrays.copyOfRange(b.inputs(), from, to), shape),
                        sub.create(Arrays.copyOfRange(b.targets(), from, to), shape), settings.temperature()).toFloatArray();
                System.arraycopy(part, 0, out, from, part.length);
            }
        }
        return out;
    }

    /** Weights and optimizer state, for a checkpoint. */
    public Map<String, float[]> parameters() {
        return gpt.snapshot();
    }

    @Override
    public void close() {
        gpt.close();
    }
}
