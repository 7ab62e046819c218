package ai.openalice.rl.trainer.service;

import ai.openalice.rl.core.loss.Aggregation;
import ai.openalice.rl.core.loss.KlEstimator;
import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.model.djl.CausalLm;
import ai.openalice.rl.model.djl.HfLm;
import ai.openalice.rl.model.learner.Learner;
import ai.openalice.rl.model.learner.LrSchedule;
import ai.openalice.rl.model.train.AdamW;
import ai.openalice.rl.trainer.config.TrainerConfig;
import java.util.Map;

/** The loss, the schedule and the built-in (DJL) learner as the trainer's settings make them. */
final class Learners {
    private final TrainerConfig config;
    private final Aggregation aggregation;

    Learners(TrainerConfig config, Aggregation aggregation) {
        this.config = config;
        this.aggregation = aggregation;
    }

    /** The built-in learner of {@code gpt}, with the optimizer state a checkpoint held (none: fresh). */
    <M extends CausalLm> Learner<M> djl(M gpt, Map<String, float[]> optimizerState, long optimizerStep) {
        if (gpt instanceof HfLm hf) {
            hf.exportOnnx(config.exportOnnx());
        } else if (!config.exportOnnx()) {
            throw new IllegalStateException("trainer.export-onnx=false is for a HuggingFace model served by an external engine; the built-in"
                    + " model is served from its ONNX graph");
        }
        var o = config.optim();
        var opt = new AdamW(0.9, 0.999, 1e-8, o.weightDecay(), o.clipNorm());
        if (!optimizerState.isEmpty()) {
            opt.restore(optimizerState, optimizerStep, gpt.parameters());
        }
        return new Learner<>(gpt, opt, new Learner.Settings(loss(gpt.contextLength()), schedule(), o.ppoEpochs(), o.miniBatches(),
                o.microBatch(), (float) config.loss().temperature()));
    }

    /** The loss of a model whose context is {@code contextLength} tokens. */
    PolicyLossConfig loss(int contextLength) {
        var l = config.loss();
        int maxLength = l.maxLength() > 0 ? l.maxLength() : contextLength;
        return new PolicyLossConfig(l.epsLow(), l.epsHigh(), Double.NaN, aggregation, maxLength, 0, KlEstimator.K3, 0, l.tisCap());
    }

    /** The learning rate by optimizer step. */
    LrSchedule schedule() {
        var o = config.optim();
        return o.schedule() == TrainerConfig.Schedule.COSINE ? new LrSchedule(o.lr(), o.warmupSteps(), true, o.totalSteps(), o.minLrRatio())
                : LrSchedule.constant(o.lr(), o.warmupSteps());
    }
}
