package ai.openalice.rl.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.checkpoint.CheckpointException;
import ai.openalice.rl.model.tokenizer.ByteTokenizer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelPartsTest {

    @Test
    void byteTokenizerRoundTripsAnyTextAndKeepsSpecialsApart() {
        var t = new ByteTokenizer();
        String text = "def f(x):\n    return x + 1  # é ✓ <|eos|>";
        int[] ids = t.encode(text);
        assertEquals(text, t.decode(ids));
        assertTrue(Arrays.stream(ids).allMatch(i -> i < 256), "specials never come out of ordinary text");
        int eos = t.requireSpecial("<|eos|>");
        assertEquals(258, eos);
        assertEquals("ok<|eos|>", t.decode(new int[] {'o', 'k', eos}));
        assertEquals(265, t.vocabSize());
        assertEquals("byte-v1 has no special token <|x|>; it has " + ByteTokenizer.SPECIALS,
                assertThrows(IllegalArgumentException.class, () -> t.requireSpecial("<|x|>")).getMessage());
    }

    @Test
    void samplerIsGreedyAtZeroSeededAndReportsLogprobsAtTheTemperature() {
        float[] logits = {1f, 3f, 2f, -1f};
        var greedy = new Sampler(0, 1, 1).next(logits);
        assertEquals(1, greedy.token());
        // log softmax at T=1: 3 − log(e^1 + e^3 + e^2 + e^-1)
        double z = Math.log(Math.exp(1) + Math.exp(3) + Math.exp(2) + Math.exp(-1));
        assertEquals(3 - z, greedy.logprob(), 1e-12);
        // top_p so small that only the most likely token is in the nucleus
        assertEquals(1, new Sampler(1, 1e-6, 5).next(logits).token());
        // same seed, same draws; at T=2 the logprob is log softmax(logits/2)
        var a = new Sampler(2, 1, 42);
        var b = new Sampler(2, 1, 42);
        double z2 = Math.log(Math.exp(0.5) + Math.exp(1.5) + Math.exp(1) + Math.exp(-0.5));
        for (int i = 0; i < 50; i++) {
            var x = a.next(logits);
            assertEquals(x, b.next(logits));
            assertEquals(logits[x.token()] / 2.0 - z2, x.logprob(), 1e-9);
        }
        // frequencies follow softmax: token 1 has p = e^3/Σ ≈ 0.6652 at T=1
        var s = new Sampler(1, 1, 7);
        int ones = 0;
        for (int i = 0; i < 20_000; i++) {
            ones += s.next(logits).token() == 1 ? 1 : 0;
        }
        double p1 = Math.exp(3 - z);
        assertEquals(p1, ones / 20_000.0, 4 * Math.sqrt(p1 * (1 - p1) / 20_000)); // 4 standard errors
    }

    /** Values for every parameter of {@code c} at its shape (no tensor engine here). */
    static Map<String, float[]> params(GptConfig c, long seed) {
        var rnd = new SplittableRandom(seed);
        var out = new LinkedHashMap<String, float[]>();
        for (String name : c.parameterNames()) {
            float[] v = new float[(int) Arrays.stream(c.shape(name)).reduce(1, (a, b) -> a * b)];
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) (rnd.nextDouble() - 0.5) * 0.04f;
            }
            out.put(name, v);
        }
        return out;
    }

    @Test
    void theParameterLayoutAddsUpToTheParameterCount() {
        var c = new GptConfig(40, 16, 2, 2, 8);
        // by hand, width 8: per layer 2 LayerNorms (4·8) + qkv 8·24 + 24 + proj 64 + 8 + mlp 8·32 + 32 + 32·8 + 8 = 872;
        // embeddings 40·8 + 16·8 = 448; final LayerNorm 16: 448 + 2·872 + 16 = 2208
        long total = c.parameterNames().stream().mapToLong(n -> Arrays.stream(c.shape(n)).reduce(1, (a, b) -> a * b)).sum();
        assertEquals(2208, total);
        assertEquals(2208, c.parameterCount());
        assertEquals(2 + 2 * 12 + 2, c.parameterNames().size());
    }

    @Test
    void aCheckpointWhoseWritingFailsLeavesNothingBehind(@TempDir Path tmp) throws Exception {
        var c = new GptConfig(40, 16, 1, 2, 8);
        var params = params(c, 3);
        params.remove("h0.attn.qkv"); // the export fails half-way, after the temporary folder was made
        assertThrows(RuntimeException.class, () -> Checkpoint.save(tmp.resolve("v4"), c, "byte-v1", 4, 40, params, Map.of(), 0));
        try (var left = Files.list(tmp)) {
            assertEquals(List.of(), left.toList(), "neither v4 nor its v4.tmp-* folder");
        }
        Files.createDirectories(tmp.resolve("v5.tmp-123"));
        assertTrue(Checkpoint.unfinished(tmp.resolve("v5.tmp-123")));
        assertFalse(Checkpoint.unfinished(tmp.resolve("v5")), "a finished one");
    }

    @Test
    void checkpointRoundTripsAndRefusesCorruption(@TempDir Path tmp) throws Exception {
        var c = new GptConfig(40, 16, 1, 2, 8);
        {
            Map<String, float[]> params = params(c, 3);
            Path dir = tmp.resolve("v3");
            var manifest = Checkpoint.save(dir, c, "byte-v1", 3, 120, params, Map.of("wte.m", new float[] {1, 2}), 120);
            assertEquals(3, manifest.policyVersion());
            assertTrue(manifest.files().containsKey(Checkpoint.ONNX));
            var loaded = Checkpoint.load(dir);
            assertEquals(c, loaded.manifest().config());
            assertEquals(120, loaded.optimizerStep());
            assertArrayEquals(params.get("h0.attn.qkv"), loaded.params().get("h0.attn.qkv"));
            assertArrayEquals(new float[] {1, 2}, loaded.optimizer().get("wte.m"));
            // handed on without its optimizer state: the manifest no longer names optimizer.bin
            Path model = tmp.resolve("model");
            Files.createDirectories(model);
            for (String f : List.of(Checkpoint.PARAMS, Checkpoint.ONNX)) {
                Files.copy(dir.resolve(f), model.resolve(f));
            }
            var json = new ObjectMapper().readTree(dir.resolve("manifest.json").toFile());
            ((ObjectNode) json.get("files")).remove(Checkpoint.OPTIMIZER);
            Files.writeString(model.resolve("manifest.json"), json.toString());
            var bare = Checkpoint.load(model);
            assertTrue(bare.optimizer().isEmpty(), "no optimizer state");
            assertEquals(0, bare.optimizerStep());
            assertArrayEquals(params.get("h0.attn.qkv"), bare.params().get("h0.attn.qkv"));

            byte[] onnx = Files.readAllBytes(dir.resolve(Checkpoint.ONNX));
            onnx[onnx.length / 2] ^= 1;
            Files.write(dir.resolve(Checkpoint.ONNX), onnx);
            var e = assertThrows(CheckpointException.class, () -> Checkpoint.verify(dir));
            assertEquals(CheckpointException.Reason.CORRUPT, e.reason());
            assertEquals(CheckpointException.Reason.MISSING, assertThrows(CheckpointException.class,
                    () -> Checkpoint.verify(tmp.resolve("nope"))).reason());
        }
    }
}
