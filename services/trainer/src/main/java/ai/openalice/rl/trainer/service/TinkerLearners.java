package ai.openalice.rl.trainer.service;

import ai.openalice.rl.core.loss.PolicyLossConfig;
import ai.openalice.rl.model.checkpoint.CheckpointException;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.learner.LrSchedule;
import ai.openalice.rl.tinker.TinkerClient;
import ai.openalice.rl.trainer.config.TrainerConfig;
import ai.openalice.rl.trainer.tinker.TinkerLearner;
import ai.openalice.rl.trainer.tinker.TinkerState;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.jboss.logging.Logger;

/**
 * The learner of {@code trainer.learner=tinker} from the trainer's settings: the engine's client
 * (its URL and API key), the model (a LoRA adapter of {@code trainer.lora.rank} over
 * {@code trainer.init-model}, which the engine knows as {@code trainer.tinker.base-model}) and the
 * loss and schedule the built-in learner would use. An engine away is logged and counted in
 * {@link #away} (the status and the metrics say so) and waited out by the client.
 */
final class TinkerLearners {
    private static final Logger LOG = Logger.getLogger(TinkerLearners.class);

    private final TrainerConfig config;
    private final TinkerLearner.Model model;
    private final HfConfig base;
    /** 1 while the engine is away (a gauge's source). */
    final AtomicLong away = new AtomicLong();
    /** Why the engine is away (the last failed call), while it is. */
    private volatile String awayReason;

    TinkerLearners(TrainerConfig config) {
        this.config = config;
        var t = config.tinker();
        Path dir = config.initModel().orElseThrow(() -> new IllegalArgumentException(
                "trainer.learner=tinker trains an adapter over trainer.init-model: set it to the base model's folder"));
        t.url().orElseThrow(() -> new IllegalArgumentException("trainer.learner=tinker needs trainer.tinker.url, the engine's URL"));
        this.model = new TinkerLearner.Model(t.baseModel().orElse(dir.toAbsolutePath().toString()), dir, config.lora().rank(), config.seed(),
                config.exportOnnx());
        try {
            this.base = HfConfig.read(dir);
        } catch (IOException e) {
            throw new IllegalArgumentException("trainer.init-model " + dir + " cannot be read: " + e.getMessage(), e);
        }
    }

    /** A new adapter on the engine. */
    TinkerLearner create(Function<Integer, PolicyLossConfig> loss, LrSchedule lr) {
        var learner = TinkerLearner.create(client(), model, settings(loss, lr));
        LOG.infof("training a new rank-%d adapter of %s on the Tinker engine %s (model %s)", model.rank(), model.baseModel(),
                config.tinker().url().get(), learner.modelId());
        return learner;
    }

    /** The learner the checkpoint in {@code dir} saved (its {@value TinkerState#FILE}). */
    TinkerLearner resume(Path dir, Function<Integer, PolicyLossConfig> loss, LrSchedule lr) {
        var saved = TinkerState.read(dir).orElseThrow(() -> new CheckpointException(CheckpointException.Reason.INCOMPATIBLE, dir
                + " was not written by the Tinker learner (no " + TinkerState.FILE + "): trainer.learner=tinker resumes only its own checkpoints"));
        var learner = TinkerLearner.resume(client(), saved, model, settings(loss, lr));
        LOG.infof("resumed the engine's state %s (optimizer step %d) as model %s", saved.state(), saved.optimizerStep(), learner.modelId());
        return learner;
    }

    /** For /status: the learner's kind and engine, and whether and why the engine is away. */
    Map<String, Object> status() {
        var out = new LinkedHashMap<String, Object>();
        out.put("kind", "tinker");
        out.put("url", config.tinker().url().map(Object::toString).orElse(null));
        boolean isAway = away.get() == 1;
        out.put("engineAway", isAway);
        if (isAway) {
            out.put("awayReason", awayReason);
        }
        return out;
    }

    private TinkerLearner.Settings settings(Function<Integer, PolicyLossConfig> loss, LrSchedule lr) {
        var o = config.optim();
        if (o.ppoEpochs() != 1 || o.miniBatches() != 1) {
            throw new IllegalArgumentException("trainer.learner=tinker takes one optimizer step per batch: trainer.optim.ppo-epochs and"
                    + " mini-batches must be 1, got " + o.ppoEpochs() + " and " + o.miniBatches());
        }
        if (o.clipNorm() > 0 && !config.tinker().engineClipsGradients()) {
            throw new IllegalArgumentException("trainer.optim.clip-norm=" + o.clipNorm() + " cannot hold on the Tinker engine: SkyRL's optim_step"
                    + " has no gradient clipping and ignores the Tinker API's grad_clip_norm (docs/learners.md); set trainer.optim.clip-norm=0 to"
                    + " train without it, or trainer.tinker.engine-clips-gradients=true for an engine that applies grad_clip_norm");
        }
        return new TinkerLearner.Settings(loss.apply(base.maxPositions()), lr, 0.9, 0.999, 1e-8, o.weightDecay(), base.maxPositions(), true,
                o.clipNorm());
    }

    private TinkerClient client() {
        String key = config.tinker().apiKeyFile().map(TinkerLearners::key).orElse(null);
        return new TinkerClient(config.tinker().url().get(), key, new TinkerClient.Listener() {
            @Override
            public void engineAway(String reason) {
                awayReason = reason;
                if (away.getAndSet(1) == 0) {
                    LOG.warnf("the Tinker engine is away (%s): waiting for it, nothing is given up", reason);
                }
            }

            @Override
            public void engineBack() {
                if (away.getAndSet(0) == 1) {
                    LOG.info("the Tinker engine is back");
                }
            }
        });
    }

    private static String key(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new IllegalArgumentException("trainer.tinker.api-key-file " + file + " cannot be read: " + e.getMessage(), e);
        }
    }
}
