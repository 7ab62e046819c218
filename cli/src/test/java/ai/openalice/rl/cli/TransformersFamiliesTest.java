package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.testkit.PythonReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every family alice-rl reads (Llama with llama3 RoPE scaling and attention bias, Mistral, Qwen2
 * with tied embeddings, Qwen3), in float32, bfloat16 and float16, as transformers' own
 * {@code save_pretrained} writes a tiny random model, each with a random LoRA adapter PEFT wrote:
 * {@code model score} with both engines gives transformers' (and PEFT's) log-probs. The project's
 * hand-checked {@code ReferenceLm} stays the reference of the formulas; this one is nobody's here.
 */
class TransformersFamiliesTest {
    static final ObjectMapper M = new ObjectMapper();
    static final String TOKENS = "3,1,4,1,5,9,2,6,5,3,58,9,7,9,3,2,38,46,26,43";

    @TempDir
    Path dir;

    @Test
    void bothEnginesGiveTransformersLogProbsForEveryFamilyAndWeightType() throws Exception {
        JsonNode expected = PythonReference.reference("tiny-families", "--out", dir.toString(), "--tokens", TOKENS);
        assertEquals(12, expected.size(), "four families in three weight types: " + expected.size());
        var failures = new ArrayList<String>();
        for (var it = expected.fields(); it.hasNext();) {
            var model = it.next();
            Path folder = dir.resolve(model.getKey());
            for (String engine : new String[] {"djl", "onnx"}) {
                check(failures, model.getKey() + " " + engine, PythonReference.doubles(model.getValue().get("logprobs")), folder, null, engine);
                check(failures, model.getKey() + " " + engine + " with PEFT's adapter", PythonReference.doubles(model.getValue().get("adapted")),
                        folder, dir.resolve(model.getKey() + "-adapter"), engine);
            }
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    private static void check(List<String> failures, String what, double[] expected, Path model, Path adapter, String engine) throws Exception {
        var args = new ArrayList<>(List.of("model", "score", "--model", model.toString(), "--engine", engine, "--tokens", TOKENS));
        if (adapter != null) {
            args.addAll(List.of("--adapter", adapter.toString()));
        }
        var out = new StringWriter();
        var err = new StringWriter();
        int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args.toArray(String[]::new));
        if (exit != 0) {
            failures.add(what + ": exit " + exit + ": " + err.toString().strip());
            return;
        }
        double[] got = PythonReference.doubles(M.readTree(out.toString().strip().lines().reduce((a, b) -> b).orElseThrow()).get("logprobs"));
        if (expected.length != got.length) {
            failures.add(what + ": " + got.length + " log-probs, transformers gave " + expected.length);
            return;
        }
        double worst = 0;
        for (int i = 0; i < expected.length; i++) {
            worst = Math.max(worst, Math.abs(expected[i] - got[i]));
        }
        if (worst > 1e-4) {
            failures.add(what + ": largest difference " + worst);
        }
    }
}
