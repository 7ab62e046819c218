package ai.openalice.rl.trainer.service;

import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.checkpoint.CheckpointException;
import ai.openalice.rl.model.checkpoint.Manifest;
import ai.openalice.rl.model.djl.CausalLm;
import ai.openalice.rl.model.djl.Gpt;
import ai.openalice.rl.model.djl.HfLm;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfFormatException;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.hf.HfWeights;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The model the trainer trains and the optimizer state it starts with: the built-in GPT, or a
 * HuggingFace-family model — fully fine-tuned, or through a LoRA adapter (a new one, or one given)
 * with the base frozen — from its folder as shipped or from a checkpoint this trainer wrote.
 */
final class PolicyModels {
    private PolicyModels() {}

    record Start(CausalLm model, Map<String, float[]> optimizer, long optimizerStep, String description) {}

    /** LoRA for a HuggingFace model; rank 0 means full fine-tuning. */
    record Lora(int rank, double alpha, List<String> targets, boolean rslora) {
        boolean enabled() {
            return rank > 0;
        }
    }

    /**
     * A checkpoint: the built-in GPT's parameters, a HuggingFace model's full weights, or its adapter
     * over the base in {@code baseModel} (trainer.init-model; else the adapter's
     * {@code base_model_name_or_path}).
     */
    static Start resume(Path dir, Optional<Path> baseModel) {
        Manifest m = Checkpoint.verify(dir);
        if (m.hf() == null) {
            var c = Checkpoint.load(dir, m);
            return new Start(Gpt.withParameters(m.config(), c.params()), c.optimizer(), c.optimizerStep(),
                    "%,d parameters".formatted(m.config().parameterCount()));
        }
        var opt = Checkpoint.optimizer(dir);
        try {
            if (Files.isRegularFile(dir.resolve(LoraConfig.FILE))) {
                Path base = baseModel.orElseGet(() -> basePath(dir));
                HfModel b = HfModel.load(base);
                var adapter = LoraAdapter.load(dir, b.config());
                return new Start(HfLm.withAdapter(b.config(), b.floats(), adapter).from(base, dtype(b)), opt.arrays(), opt.step(),
                        "%s with a rank-%d adapter over %s".formatted(m.architecture(), adapter.config().r(), base));
            }
            HfModel full = HfModel.load(dir);
            return new Start(HfLm.full(full.config(), full.floats()).from(dir, dtype(full)), opt.arrays(), opt.step(),
                    "%s, full weights".formatted(m.architecture()));
        } catch (IOException e) {
            throw new CheckpointException(CheckpointException.Reason.CORRUPT, "cannot read the model of " + dir + ": " + e.getMessage(), e);
        }
    }

    /** A HuggingFace model folder as shipped, with {@code adapter} (a PEFT folder) or a new adapter of {@code lora}, or fully. */
    static Start fromHf(Path modelDir, Optional<Path> adapterDir, Lora lora, long seed) {
        try {
            HfModel m = HfModel.load(modelDir);
            var base = m.floats();
            if (adapterDir.isPresent()) {
                var adapter = LoraAdapter.load(adapterDir.get(), m.config());
                return new Start(HfLm.withAdapter(m.config(), base, adapter).from(modelDir, dtype(m)), Map.of(), 0,
                        "%s from %s with the rank-%d adapter %s".formatted(m.config().modelType(), modelDir, adapter.config().r(), adapterDir.get()));
            }
            if (lora.enabled()) {
                var cfg = new LoraConfig(lora.rank(), lora.alpha(), lora.targets(), null, lora.rslora(), modelDir.toAbsolutePath().toString());
                var adapter = LoraAdapter.initialise(cfg, m.config(), seed);
                return new Start(HfLm.withAdapter(m.config(), base, adapter).from(modelDir, dtype(m)), Map.of(), 0,
                        "%s from %s with a new rank-%d adapter on %s".formatted(m.config().modelType(), modelDir, lora.rank(), lora.targets()));
            }
            return new Start(HfLm.full(m.config(), base).from(modelDir, dtype(m)), Map.of(), 0,
                    "%s from %s, full fine-tuning".formatted(m.config().modelType(), modelDir));
        } catch (IOException e) {
            throw new HfFormatException(modelDir + " cannot be read: " + e.getMessage());
        }
    }

    /** Checkpoints keep the weights in the dtype the model shipped in. */
    private static DType dtype(HfModel m) {
        HfWeights w = m.weights();
        String first = m.config().tensors().keySet().iterator().next();
        return w.entry(first).dtype();
    }

    private static Path basePath(Path adapterCheckpoint) {
        try {
            String base = LoraConfig.read(adapterCheckpoint).baseModel();
            if (base == null || !Files.isDirectory(Path.of(base))) {
                throw new CheckpointException(CheckpointException.Reason.INCOMPATIBLE, adapterCheckpoint + " is an adapter whose base ("
                        + base + ") is not a folder here: set trainer.init-model to the base model");
            }
            return Path.of(base);
        } catch (IOException e) {
            throw new CheckpointException(CheckpointException.Reason.CORRUPT, "cannot read " + adapterCheckpoint.resolve(LoraConfig.FILE), e);
        }
    }
}
