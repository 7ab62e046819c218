package ai.openalice.rl.model.checkpoint;

import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.onnx.CacheLayout;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;
import java.util.Map;

/**
 * What a checkpoint is: format, architecture, tokenizer, policy version, training step, and the
 * sha256 and size of every file in it. The architecture is the built-in GPT ({@code gpt},
 * {@code config}) or a HuggingFace family ({@code hf-<model_type>}, {@code hf}; the folder then
 * also holds the model as HuggingFace tools load it). The tokenizer is {@code byte-v1} or
 * {@code hf:tokenizer.json} (the file in the checkpoint).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Manifest(
        String format, String architecture, GptConfig config, String tokenizer, long policyVersion, long step, Instant createdAt,
        Map<String, FileEntry> files, HfConfig hf) {

    public static final String FORMAT = "alice-rl-checkpoint/1";
    public static final String FILE_NAME = "manifest.json";
    /** The tokenizer of a HuggingFace checkpoint: its own tokenizer.json. */
    public static final String HF_TOKENIZER = "hf:tokenizer.json";

    public Manifest {
        files = Map.copyOf(files);
        if ((config == null) == (hf == null)) {
            throw new IllegalArgumentException("a checkpoint holds either the built-in GPT (config) or a HuggingFace model (hf)");
        }
    }

    /** The KV cache its ONNX graph takes and returns. */
    @JsonIgnore
    public CacheLayout cache() {
        return hf != null ? CacheLayout.of(hf) : CacheLayout.of(config);
    }

    @JsonIgnore
    public int contextLength() {
        return cache().contextLength();
    }

    @JsonIgnore
    public int vocabSize() {
        return cache().vocabSize();
    }

    /** A file of the checkpoint. */
    public record FileEntry(String sha256, long bytes) {}
}
