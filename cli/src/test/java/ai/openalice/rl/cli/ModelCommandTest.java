package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.model.checkpoint.Checkpoint;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.model.hf.ReferenceLm;
import ai.openalice.rl.model.hf.TinyModels;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code alice-rl model score} with both engines against the reference, {@code model export}, and bad input exiting 2 with the reason. */
class ModelCommandTest {
    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
        JsonNode lastLine() throws Exception {
            return new ObjectMapper().readTree(out.strip().lines().reduce((a, b) -> b).orElse(""));
        }

        double[] logprobs() throws Exception {
            JsonNode l = lastLine().get("logprobs");
            double[] out = new double[l.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = l.get(i).asDouble();
            }
            return out;
        }
    }

    private static Run run(String... args) {
        var out = new StringWriter();
        var err = new StringWriter();
        int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void bothEnginesGiveTheReferencesLogProbsWithAndWithoutAnAdapter() throws Exception {
        var json = TinyModels.config("qwen3");
        HfConfig c = HfConfig.of(json, "qwen3");
        var base = TinyModels.randomWeights(c, 21);
        Path model = TinyModels.write(dir.resolve("m"), json, base, DType.F32, 2);
        var adapter = LoraAdapter.initialise(new LoraConfig(2, 4, List.of("k_proj", "up_proj"), null, false, null), c, 1);
        var rnd = new Random(3);
        adapter.b().values().forEach(b -> {
            for (int i = 0; i < b.length; i++) {
                b[i] = (float) (0.5 * rnd.nextGaussian());
            }
        });
        adapter.save(dir.resolve("a"), DType.F32);
        int[] tokens = {3, 1, 4, 1, 5, 9, 2, 6};
        double[] plain = new ReferenceLm(c, base).logProbs(tokens);
        double[] adapted = new ReferenceLm(c, adapter.merge(base)).logProbs(tokens);
        for (String engine : new String[] {"onnx", "djl"}) {
            var r = run("model", "score", "--model", model.toString(), "--engine", engine, "--tokens", "3,1,4,1,5,9,2,6");
            assertEquals(0, r.exit(), r.err());
            assertEquals(8, r.lastLine().get("tokens").size());
            assertArrayEquals(plain, r.logprobs(), 1e-4, engine);
            var a = run("model", "score", "--model", model.toString(), "--adapter", dir.resolve("a").toString(), "--engine", engine, "--tokens",
                    "3,1,4,1,5,9,2,6");
            assertEquals(0, a.exit(), a.err());
            assertArrayEquals(adapted, a.logprobs(), 1e-4, engine + " with the adapter");
        }
    }

    @Test
    void exportWritesAServableCheckpoint() throws Exception {
        var json = TinyModels.config("llama");
        HfConfig c = HfConfig.of(json, "llama");
        Path model = TinyModels.write(dir.resolve("m"), json, TinyModels.randomWeights(c, 2), DType.F32, 1);
        var r = run("model", "export", "--model", model.toString(), "--out", dir.resolve("ckpt").toString(), "--policy-version", "5");
        assertEquals(0, r.exit(), r.err());
        var manifest = Checkpoint.verify(dir.resolve("ckpt"));
        assertEquals("hf-llama", manifest.architecture());
        assertEquals(5, manifest.policyVersion());
        assertTrue(manifest.files().containsKey("model.onnx") && manifest.files().containsKey("model.safetensors"));
        var again = run("model", "export", "--model", model.toString(), "--out", dir.resolve("ckpt").toString());
        assertEquals(ModelCommand.BAD_INPUT, again.exit());
        assertTrue(again.err().contains("exists"), again.err());
    }

    @Test
    void badInputExitsTwoNamingWhatIsWrong() throws Exception {
        var r = run("model", "score", "--model", dir.resolve("nowhere").toString(), "--tokens", "1,2");
        assertEquals(ModelCommand.BAD_INPUT, r.exit());
        assertTrue(r.err().contains("not a folder"), r.err());

        var gpt2 = TinyModels.config("llama");
        Path m = TinyModels.write(dir.resolve("m"), gpt2, TinyModels.randomWeights(HfConfig.of(gpt2, "t"), 1), DType.F32, 1);
        TinyModels.JSON.writeValue(m.resolve("config.json").toFile(), TinyModels.config("gpt2"));
        r = run("model", "score", "--model", m.toString(), "--tokens", "1,2");
        assertEquals(ModelCommand.BAD_INPUT, r.exit());
        assertTrue(r.err().contains("model_type 'gpt2' is not supported"), r.err());

        var qwen = TinyModels.config("qwen2");
        Path q = TinyModels.write(dir.resolve("q"), qwen, TinyModels.randomWeights(HfConfig.of(qwen, "t"), 1), DType.F32, 1);
        r = run("model", "score", "--model", q.toString(), "--tokens", "1,99");
        assertEquals(ModelCommand.BAD_INPUT, r.exit());
        assertTrue(r.err().contains("id 99 at 1 is outside the vocabulary (0..10)"), r.err());

        // an adapter written for a model with a wider MLP
        var wide = TinyModels.config("qwen2").put("intermediate_size", 20);
        LoraAdapter.initialise(new LoraConfig(2, 4, List.of("up_proj"), null, false, null), HfConfig.of(wide, "t"), 1).save(dir.resolve("wide"), DType.F32);
        r = run("model", "score", "--model", q.toString(), "--adapter", dir.resolve("wide").toString(), "--tokens", "1,2");
        assertEquals(ModelCommand.BAD_INPUT, r.exit());
        assertTrue(r.err().contains("lora_B.weight has shape [20, 2], the base model needs [12, 2]"), r.err());
    }
}
