package ai.openalice.rl.inference;

import ai.openalice.rl.model.GptConfig;
import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.djl.Gpt;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Writes checkpoints v1 and v2 (different weights) before the service starts, and serves v1 at start. */
public class Checkpoints implements QuarkusTestResourceLifecycleManager {
    /** A context of 1,024: a long greedy sample takes long enough to watch it stream (OpenAiClientTest). */
    static final GptConfig CONFIG = new GptConfig(new ByteTokenizer().vocabSize(), 1024, 2, 2, 32);
    static Path root;

    static Path dir(long version) {
        return root.resolve("v" + version);
    }

    @Override
    public Map<String, String> start() {
        try {
            root = Files.createTempDirectory("inference-checkpoints");
            for (long v = 1; v <= 2; v++) {
                try (Gpt gpt = Gpt.initialise(CONFIG, 100 + v)) {
                    var params = gpt.snapshot();
                    // A small random GPT with tied embeddings tends to repeat its last token whatever the
                    // seed; larger weights in v2 make the two versions answer differently.
                    if (v == 2) {
                        params.replaceAll((name, w) -> name.contains("mlp") || name.contains("attn") ? scaled(w, 30f) : w);
                    }
                    Checkpoint.save(dir(v), CONFIG, "byte-v1", v, v * 10, params, Map.of(), 0);
                }
            }
            // v3: v2's files with one flipped byte in the ONNX graph (the manifest's sha256 no longer matches).
            Files.createDirectories(dir(3));
            try (var files = Files.list(dir(2))) {
                for (Path f : files.toList()) {
                    Files.copy(f, dir(3).resolve(f.getFileName()));
                }
            }
            byte[] onnx = Files.readAllBytes(dir(3).resolve(Checkpoint.ONNX));
            onnx[onnx.length - 100] ^= 0x40;
            Files.write(dir(3).resolve(Checkpoint.ONNX), onnx);
            return Map.of("inference.checkpoint", dir(1).toString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static float[] scaled(float[] w, float k) {
        float[] out = w.clone();
        for (int i = 0; i < out.length; i++) {
            out[i] *= k;
        }
        return out;
    }

    @Override
    public void stop() {
        // temp folders are left to the OS
    }
}
