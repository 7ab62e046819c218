package ai.openalice.rl.cli.train;

import ai.openalice.rl.events.RunProfile;
import ai.openalice.rl.jinja.TemplateException;
import ai.openalice.rl.model.chat.ChatTemplate;
import ai.openalice.rl.model.chat.TemplateChat;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.HfFormatException;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code alice-rl train --model DIR}: a HuggingFace model as the policy. The trainer trains it (fully,
 * or LoRA: {@code --adapter} or {@code --lora-rank}), the inference service serves each checkpoint,
 * and the runner lays the episodes out with its tokenizer and chat template, reading calls in the
 * form the template teaches.
 */
final class ModelOptions {
    @Option(names = "--model", paramLabel = "DIR", description = "Train this HuggingFace model (a Llama, Mistral, Qwen2 or Qwen3 folder:"
            + " config.json, safetensors, tokenizer.json, a chat template) instead of the built-in one. No warm start unless"
            + " --warm-start-steps is given.")
    Path model;

    @Option(names = "--adapter", paramLabel = "DIR", description = "With --model: go on training this PEFT LoRA adapter (the base frozen).")
    Path adapter;

    @Option(names = "--lora-rank", defaultValue = "0", paramLabel = "R", description = "With --model: train a new LoRA adapter of rank R"
            + " (0: every weight; default: ${DEFAULT-VALUE}).")
    int loraRank;

    @Option(names = "--lora-alpha", defaultValue = "16", paramLabel = "A", description = "lora_alpha of the new adapter (default: ${DEFAULT-VALUE}).")
    double loraAlpha;

    @Option(names = "--lora-targets", defaultValue = "q_proj,v_proj", split = ",", paramLabel = "MODULE,...",
            description = "Modules the new adapter adapts (default: ${DEFAULT-VALUE}).")
    List<String> loraTargets;

    @Option(names = "--max-context-tokens", paramLabel = "N", description = "With --model: an episode's context budget in the model's tokens"
            + " (prompt, calls, observations; at most the model's max_position_embeddings; default: " + RunProfile.CONTEXT_LENGTH
            + ", or the model's own limit when smaller). The trainer's memory grows with it.")
    Integer maxContextTokens;

    @Option(names = "--learner", defaultValue = "djl", paramLabel = "KIND", description = "With --model: where the trainer's forward, backward"
            + " and optimizer steps run — djl (in this process, float32, one device) or tinker (an engine speaking the Tinker API at"
            + " --learner-url, e.g. SkyRL's server on a GPU cluster; it trains a LoRA adapter of --lora-rank). Default: ${DEFAULT-VALUE}.")
    String learner;

    @Option(names = "--learner-url", paramLabel = "URL", description = "With --learner tinker: the engine's base URL.")
    URI learnerUrl;

    @Option(names = "--learner-api-key-file", paramLabel = "FILE", description = "With --learner tinker: a file holding the engine's API key.")
    Path learnerApiKeyFile;

    @Option(names = "--learner-base-model", paramLabel = "NAME", description = "With --learner tinker: the base model as the engine loads it"
            + " (a HuggingFace id or a path on its machine; default: --model's path).")
    String learnerBaseModel;

    @Option(names = "--sampler", defaultValue = "inference", paramLabel = "WHERE", description = "With --learner tinker: where episodes are"
            + " sampled — inference (each checkpoint's adapter merged and run on ONNX Runtime by the inference service) or tinker (the"
            + " engine itself, at the sampler weights each checkpoint names: nothing is merged or exported). Default: ${DEFAULT-VALUE}.")
    String sampler;

    boolean given() {
        return model != null;
    }

    /**
     * Why the model cannot be trained in the loop, as the trainer and the runner will read it (the
     * folder, the adapter, the tokenizer and its end tokens, the chat template); null when it can.
     */
    String problem() {
        if (loraRank < 0 || !(loraAlpha > 0) || (loraRank > 0 && loraTargets.isEmpty())) {
            return "--lora-rank must be >= 0, --lora-alpha > 0 and --lora-targets name a module, got " + loraRank + ", " + loraAlpha + ", " + loraTargets;
        }
        if (adapter != null && loraRank > 0) {
            return "--adapter and --lora-rank both give an adapter: keep one";
        }
        String learnerProblem = learnerProblem();
        if (learnerProblem != null) {
            return learnerProblem;
        }
        try {
            HfModel m = HfModel.load(model);
            int positions = m.config().maxPositions();
            if (maxContextTokens != null && (maxContextTokens < 1 || maxContextTokens > positions)) {
                return "--max-context-tokens must be between 1 and the model's max_position_embeddings (" + positions + "), got " + maxContextTokens;
            }
            if (adapter != null) {
                LoraAdapter.load(adapter, m.config());
            }
            try (var t = HuggingFaceTokenizer.forModel(model)) {
                if (t.endTokens().length == 0) {
                    return "--model " + model + ": no end-of-sequence token (eos_token_id in generation_config.json or config.json)";
                }
                new TemplateChat(ChatTemplate.load(model, true), t, Map.of()); // its special tokens exist
            }
            return null;
        } catch (HfFormatException | TemplateException e) {
            return "--model: " + e.getMessage();
        } catch (IOException e) {
            return "--model " + model + " cannot be read: " + e.getMessage();
        }
    }

    /** Why the options cannot go without {@code --model}; null when they can (the learner's options need a model). */
    String problemWithoutModel() {
        return !"djl".equals(learner) || learnerUrl != null || samplesOnEngine()
                ? "--learner, --learner-url and --sampler are for a HuggingFace model: give --model DIR" : null;
    }

    private boolean tinker() {
        return "tinker".equals(learner);
    }

    /** Episodes sampled on the Tinker engine (runner.policy=tinker) rather than by the inference service. */
    boolean samplesOnEngine() {
        return "tinker".equals(sampler);
    }

    private String learnerProblem() {
        if (!tinker() && !"djl".equals(learner)) {
            return "--learner must be djl or tinker, got " + learner;
        }
        if (!"inference".equals(sampler) && !samplesOnEngine()) {
            return "--sampler must be inference or tinker, got " + sampler;
        }
        if (!tinker()) {
            return learnerUrl != null || learnerApiKeyFile != null || learnerBaseModel != null || samplesOnEngine()
                    ? "--learner-url, --learner-api-key-file, --learner-base-model and --sampler tinker are for --learner tinker" : null;
        }
        if (learnerUrl == null) {
            return "--learner tinker needs --learner-url, the engine's URL";
        }
        if (loraRank < 1 || adapter != null) {
            return "--learner tinker trains a new LoRA adapter on the engine: give --lora-rank R (e.g. 32) and no --adapter";
        }
        return null;
    }

    /** How the model writes calls, as its template teaches: Hermes {@code <tool_call>} unless the template asks for Llama 3.1's {@code "parameters"}. */
    String callFormat() {
        try {
            String t = ChatTemplate.load(model, true).source();
            return !t.contains("<tool_call>") && t.contains("\"parameters\"") ? "llama3_json" : "json";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A JVM heap for a service that keeps the model's weights on it as float32 arrays {@code copies}
     * times over, beside the 768 MiB every service gets: the trainer holds the weights, the merged
     * weights of a LoRA checkpoint and the export's buffers (4); the inference service a checkpoint's
     * weights while it loads one beside the one it serves (2). SmolLM2-135M (540 MB of float32) ran
     * out of the default 768 MiB in the trainer at start.
     */
    String heap(int copies) {
        try {
            long mib = HfConfig.read(model).parameters() * 4 * copies >> 20;
            return "-Xmx" + (768 + mib) + "m";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The trainer's configuration for this model: the folder, an adapter to start from, LoRA. */
    Map<String, Object> trainerConfig() {
        var c = new LinkedHashMap<String, Object>();
        c.put("trainer.init-model", model.toAbsolutePath());
        if (adapter != null) {
            c.put("trainer.init-adapter", adapter.toAbsolutePath());
        }
        c.put("trainer.lora.rank", loraRank);
        c.put("trainer.lora.alpha", loraAlpha);
        c.put("trainer.lora.targets", String.join(",", loraTargets));
        if (tinker()) {
            c.put("trainer.learner", learner);
            c.put("trainer.tinker.url", learnerUrl);
            if (learnerApiKeyFile != null) {
                c.put("trainer.tinker.api-key-file", learnerApiKeyFile.toAbsolutePath());
            }
            c.put("trainer.tinker.base-model", baseModel());
            c.put("trainer.optim.clip-norm", 0); // SkyRL's engine cannot clip (docs/learners.md); the trainer refuses a clip it would ignore
        }
        return c;
    }

    /** The base model as the engine names it: as given, else the model folder's path. */
    private String baseModel() {
        return learnerBaseModel != null ? learnerBaseModel : model.toAbsolutePath().toString();
    }

    /** The episodes' context budget: as given, else the run profile's, or the model's own limit when that is smaller. */
    int contextTokens() {
        if (maxContextTokens != null) {
            return maxContextTokens;
        }
        try {
            return Math.min(Integer.parseInt(RunProfile.CONTEXT_LENGTH), HfConfig.read(model).maxPositions());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The runner's configuration for this model: the folder, its tool-call format, the full system prompt, the context budget (and with --sampler tinker, the engine). */
    Map<String, Object> runnerConfig() {
        var c = new LinkedHashMap<String, Object>();
        c.put("runner.model-dir", model.toAbsolutePath());
        c.put("runner.tool-call-format", callFormat());
        c.put("runner.system-prompt", "full");
        c.put("runner.max-context-tokens", contextTokens());
        if (samplesOnEngine()) {
            c.put("runner.policy", "tinker");
            c.put("runner.tinker.url", learnerUrl);
            c.put("runner.tinker.base-model", baseModel());
            if (learnerApiKeyFile != null) {
                c.put("runner.tinker.api-key-file", learnerApiKeyFile.toAbsolutePath());
            }
        }
        return c;
    }
}
