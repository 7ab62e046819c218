package ai.openalice.rl.trainer.service;

import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.djl.Gpt;
import ai.openalice.rl.model.learner.PolicyLearner;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import ai.openalice.rl.trainer.config.TrainerConfig;
import ai.openalice.rl.trainer.repository.TrainerStore;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Where the trainer's learner starts: the registry's latest checkpoint (weights, optimizer state,
 * step, version), or with an empty registry {@code init-checkpoint}, {@code init-model} or random
 * weights at step 0 and version 0 — in this process (DJL) or on the Tinker engine.
 */
final class LearnerStart {
    /** The learner, its step and version, the checkpoint it resumed (null: a new start, to publish as v0) and what it is. */
    record Started(PolicyLearner learner, long step, long policyVersion, TrainerStore.Registered resumed, String description) {}

    private final TrainerConfig config;
    private final Learners learners;
    /** The Tinker engine's learners; null: DJL's in this process. */
    private final TinkerLearners tinker;

    LearnerStart(TrainerConfig config, Learners learners, TinkerLearners tinker) {
        this.config = config;
        this.learners = learners;
        this.tinker = tinker;
    }

    Started start(Optional<TrainerStore.Registered> latest) {
        if (tinker != null) {
            return onTinker(latest);
        }
        if (latest.isPresent()) {
            var s = PolicyModels.resume(Path.of(latest.get().dir()), config.initModel());
            return new Started(learners.djl(s.model(), s.optimizer(), s.optimizerStep()), latest.get().step(), latest.get().policyVersion(),
                    latest.get(), s.description());
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
        return new Started(learners.djl(s.model(), s.optimizer(), s.optimizerStep()), 0, 0, null, s.description());
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
    private Started onTinker(Optional<TrainerStore.Registered> latest) {
        if (config.initCheckpoint().isPresent() || config.initAdapter().isPresent()) {
            throw new IllegalArgumentException("trainer.learner=tinker starts a new adapter over trainer.init-model on the engine:"
                    + " trainer.init-checkpoint and trainer.init-adapter are not taken");
        }
        if (latest.isPresent()) {
            return new Started(tinker.resume(Path.of(latest.get().dir()), learners::loss, learners.schedule()), latest.get().step(),
                    latest.get().policyVersion(), latest.get(), "its state on the Tinker engine");
        }
        return new Started(tinker.create(learners::loss, learners.schedule()), 0, 0, null, "a new adapter on the Tinker engine");
    }
}
