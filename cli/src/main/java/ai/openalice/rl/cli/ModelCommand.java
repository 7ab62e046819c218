package ai.openalice.rl.cli;

import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.HfFormatException;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.ReferenceLm;
import ai.openalice.rl.model.onnx.CacheLayout;
import ai.openalice.rl.model.onnx.HfOnnxExport;
import ai.openalice.rl.policy.OrtDecoder;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code alice-rl model}: check a HuggingFace model folder (and adapter) as alice-rl reads it, and turn it into a servable checkpoint. */
@Command(name = "model", mixinStandardHelpOptions = true, description = "Bring your own model: score tokens with it, export it as a checkpoint, or see what its chat template renders.",
        subcommands = {ModelCommand.ScoreCommand.class, ModelCommand.ExportCommand.class, ChatCommand.class})
final class ModelCommand {
    static final int BAD_INPUT = 2;
    static final int FAILED = 3;

    /** The model folder and the optional adapter, both commands' input. */
    static final class Source {
        @Option(names = "--model", required = true, paramLabel = "DIR", description = "A HuggingFace model folder (config.json, safetensors, tokenizer.json).")
        Path model;

        @Option(names = "--adapter", paramLabel = "DIR", description = "A PEFT LoRA adapter folder (adapter_config.json, adapter_model.safetensors).")
        Path adapter;

        record Loaded(HfModel model, LoraAdapter adapter, Map<String, float[]> weights) {}

        /** The model's full weights as it computes with them: with an adapter, merged. */
        Loaded load() throws IOException {
            HfModel m = HfModel.load(model);
            HfConfig c = m.config();
            Map<String, float[]> weights = m.floats();
            LoraAdapter a = adapter == null ? null : LoraAdapter.load(adapter, c);
            return new Loaded(m, a, a == null ? weights : a.merge(weights));
        }
    }

    @Command(name = "score", mixinStandardHelpOptions = true,
            description = "Print {\"tokens\": [...], \"logprobs\": [...]} as the last line: logprobs[i] = log p(tokens[i+1] | tokens[0..i])."
                    + " Exit 2 for bad input (missing folder, unknown family, wrong shapes, an adapter for another base).")
    static final class ScoreCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @picocli.CommandLine.Mixin
        SourceMixin source;

        @Option(names = "--engine", defaultValue = "onnx", paramLabel = "ENGINE",
                description = "djl: the learner's forward pass (PyTorch, from the trainer's package); onnx: exported and run on ONNX Runtime (default: ${DEFAULT-VALUE}).")
        Engine engine;

        @Option(names = "--tokens", required = true, split = ",", paramLabel = "ID,ID,...", description = "Token ids (at least two).")
        int[] tokens;

        enum Engine { djl, onnx }

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            double[] logprobs;
            try {
                if (tokens.length < 2) {
                    throw new HfFormatException("--tokens: at least two ids are needed (log-probs are of each token after the first)");
                }
                logprobs = engine == Engine.onnx ? onnx() : Djl.score(source.src.model, source.src.adapter, tokens);
            } catch (IllegalArgumentException e) { // HfFormatException included
                err.println(e.getMessage());
                return BAD_INPUT;
            } catch (Djl.Failed e) {
                err.println(e.getMessage());
                return e.exit;
            }
            var json = new ObjectMapper().createObjectNode();
            var t = json.putArray("tokens");
            Arrays.stream(tokens).forEach(t::add);
            var l = json.putArray("logprobs");
            Arrays.stream(logprobs).forEach(l::add);
            out.println(json);
            return 0;
        }

        private double[] onnx() throws IOException {
            var loaded = source.src.load();
            HfConfig c = loaded.model().config();
            c.checkTokens("--tokens", tokens);
            Path tmp = Files.createTempDirectory("alice-rl-score");
            try {
                Path file = tmp.resolve("model.onnx");
                HfOnnxExport.export(c, loaded.weights(), file, "score", Checkpoint.EXTERNAL_DATA_ABOVE);
                try (var decoder = new OrtDecoder(file, CacheLayout.of(c), 1, false, 0)) {
                    float[][] logits = decoder.logitsOfEveryPosition(tokens);
                    double[] out = new double[tokens.length - 1];
                    for (int i = 0; i < out.length; i++) {
                        out[i] = ReferenceLm.logSoftmax(logits[i])[tokens[i + 1]];
                    }
                    return out;
                }
            } finally {
                try (var files = Files.walk(tmp)) {
                    files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = "Write a servable checkpoint (model.onnx, the HuggingFace files or the adapter, manifest with sha256) to --out."
                    + " Exit 2 for bad input.")
    static final class ExportCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @picocli.CommandLine.Mixin
        SourceMixin source;

        @Option(names = "--out", required = true, paramLabel = "DIR", description = "The checkpoint folder to write (must not exist).")
        Path out;

        @Option(names = "--dtype", defaultValue = "BF16", paramLabel = "DTYPE", description = "The safetensors weight type written: F32, BF16 or F16 (default: ${DEFAULT-VALUE}).")
        DType dtype;

        @Option(names = "--policy-version", defaultValue = "0", paramLabel = "N", description = "The policy version the checkpoint states (default: ${DEFAULT-VALUE}).")
        long version;

        @Override
        public Integer call() throws Exception {
            PrintWriter err = spec.commandLine().getErr();
            if (Files.exists(out)) {
                err.println("--out: " + out + " exists; a checkpoint is written to a new folder");
                return BAD_INPUT;
            }
            if (!dtype.isWeight()) {
                err.println("--dtype: " + dtype + " is not a weight type (F32, BF16 or F16)");
                return BAD_INPUT;
            }
            try {
                var loaded = source.src.load();
                var m = Checkpoint.saveHf(out, loaded.model().config(), source.src.model, loaded.weights(), loaded.adapter(), dtype, version, 0, Map.of(), 0);
                spec.commandLine().getOut().printf("wrote %s (%s, policy v%d): %s%n", out, m.architecture(), m.policyVersion(), m.files().keySet());
                return 0;
            } catch (HfFormatException e) {
                err.println(e.getMessage());
                return BAD_INPUT;
            }
        }
    }

    /** The shared options as a picocli mixin. */
    static final class SourceMixin {
        @picocli.CommandLine.ArgGroup(exclusive = false, multiplicity = "1")
        Source src;
    }
}
